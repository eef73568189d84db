#include "onednn/common.hpp"

#include "onednn/adaptor.hpp"

namespace anydnn_bench::onednn {

dnnl::engine &engine() {
    static dnnl::engine e(dnnl::engine::kind::cpu, 0);
    return e;
}

dnnl::stream &stream() {
    static dnnl::stream s(engine());
    return s;
}

dnnl::memory::data_type data_type(anydnnDataType_t dt) {
    using t = dnnl::memory::data_type;
    switch (dt) {
    case ANYDNN_DATA_FLOAT: return t::f32;
    case ANYDNN_DATA_DOUBLE: return t::f64;
    case ANYDNN_DATA_HALF: return t::f16;
    case ANYDNN_DATA_BFLOAT16: return t::bf16;
    case ANYDNN_DATA_INT8: return t::s8;
    case ANYDNN_DATA_UINT8: return t::u8;
    case ANYDNN_DATA_INT32: return t::s32;
    default: throw Unsupported(std::string("oneDNN has no ") + dt_name(dt) + " data type");
    }
}

dnnl::memory::desc md(const Dims &dims, Tag tag, anydnnDataType_t dt) {
    return dnnl::memory::desc(dims, data_type(dt), strides_for(dims, tag));
}

dnnl::memory memory(const dnnl::memory::desc &d, const Buffer &b) {
    return dnnl::memory(d, engine(), const_cast<void *>(b.data()));
}

dnnl::memory reordered(dnnl::memory from, const dnnl::memory::desc &to) {
    if (from.get_desc() == to) return from;
    dnnl::memory m(to, engine());
    dnnl::reorder(from, m).execute(stream(), from, m);
    stream().wait();
    return m;
}

std::string version() {
    const dnnl_version_t *v = dnnl_version();
    const char *runtime = v->cpu_runtime == DNNL_RUNTIME_OMP        ? "OpenMP"
                          : v->cpu_runtime == DNNL_RUNTIME_TBB      ? "TBB"
                          : v->cpu_runtime == DNNL_RUNTIME_SEQ      ? "sequential"
                          : v->cpu_runtime == DNNL_RUNTIME_THREADPOOL ? "threadpool"
                                                                    : "other";
    return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) +
           " (" + v->hash + ", CPU runtime " + runtime + ")";
}

static_assert(DNNL_ARG_FROM == DNNL_ARG_SRC && DNNL_ARG_TO == DNNL_ARG_DST);

std::unique_ptr<Case> src_to_dst_case(dnnl::primitive prim, const dnnl::memory::desc &src, const Buffer &x,
                                      const dnnl::memory::desc &dst, anydnnDataType_t dt, int64_t n) {
    std::vector<Buffer> out;
    out.emplace_back(dt, n);
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, memory(src, x)}, {DNNL_ARG_DST, memory(dst, out[0])}};
    return std::make_unique<PrimitiveCase>(std::move(prim), std::move(args), std::move(out));
}

}  // namespace anydnn_bench::onednn
