// What every oneDNN adaptor shares: the engine and stream, memory
// descriptors of the tool's dims/tags/types, and a Case that runs one
// primitive on bound buffers.
#pragma once

#include <dnnl.hpp>

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/buffer.hpp"
#include "core/driver.hpp"
#include "core/error.hpp"
#include "core/types.hpp"

namespace anydnn_bench::onednn {

dnnl::engine &engine();
dnnl::stream &stream();

// Unsupported for the types oneDNN lacks (s64).
dnnl::memory::data_type data_type(anydnnDataType_t dt);
// The same dims and strides as the anydnn descriptor of (dims, tag).
dnnl::memory::desc md(const Dims &dims, Tag tag, anydnnDataType_t dt);
// A oneDNN memory object over a buffer of the tool (inputs are only read).
dnnl::memory memory(const dnnl::memory::desc &d, const Buffer &b);
// `from` in the layout `to`: itself, or a copy reordered now (not timed).
dnnl::memory reordered(dnnl::memory from, const dnnl::memory::desc &to);

// Calls make() (a primitive descriptor's constructor): a problem oneDNN
// does not implement on this CPU becomes Unsupported with oneDNN's message.
template <class Make>
auto make_pd(const char *primitive, Make &&make) -> decltype(make()) {
    try {
        return make();
    } catch (const dnnl::error &e) {
        throw Unsupported(std::string("oneDNN ") + primitive + ": " + e.what());
    }
}

class PrimitiveCase final : public Case {
public:
    // `outputs` are the buffers bound in `args` that corr mode compares.
    PrimitiveCase(dnnl::primitive p, std::unordered_map<int, dnnl::memory> args, std::vector<Buffer> outputs)
        : prim_(std::move(p)), args_(std::move(args)), outputs_(std::move(outputs)) {}

    // Output i is also an input (in place): it starts from `initial`, and
    // reset() restores it.
    void start_from(size_t i, const Buffer &initial) {
        initial_.emplace_back(i, &initial);
        outputs_[i].copy_from(initial);
    }

    // Keeps a buffer that `args` binds but that is neither an input of the
    // problem nor an output (e.g. weights in the user's layout, which oneDNN
    // may read as they are) alive as long as the case.
    void keep(Buffer b) { kept_.push_back(std::move(b)); }

    void run() override {
        prim_.execute(stream(), args_);
        stream().wait();
    }
    void reset() override {
        for (const auto &[i, b] : initial_) outputs_[i].copy_from(*b);
    }
    std::vector<Buffer *> outputs() override {
        std::vector<Buffer *> v;
        for (Buffer &b : outputs_) v.push_back(&b);
        return v;
    }

private:
    dnnl::primitive prim_;
    std::unordered_map<int, dnnl::memory> args_;
    std::vector<Buffer> outputs_, kept_;
    std::vector<std::pair<size_t, const Buffer *>> initial_;
};

// For a backward primitive whose forward hint (a forward_training
// primitive descriptor of primitive Forward) has a workspace: runs the
// forward once on src, now (not timed), and binds the filled workspace to
// DNNL_ARG_WORKSPACE in args; its y is discarded. No workspace: nothing.
template <class Forward>
void bind_forward_workspace(const typename Forward::primitive_desc &hint, const dnnl::memory &src,
                            std::unordered_map<int, dnnl::memory> &args) {
    if (hint.workspace_desc().get_size() == 0) return;
    dnnl::memory ws(hint.workspace_desc(), engine()), y(hint.dst_desc(), engine());
    Forward(hint).execute(stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, y}, {DNNL_ARG_WORKSPACE, ws}});
    stream().wait();
    args.emplace(DNNL_ARG_WORKSPACE, ws);
}

// The case of a primitive from one input to one new output (a forward pass,
// a reduction, a reorder): `x` bound to DNNL_ARG_SRC as `src`, a buffer of
// `n` elements of `dt` to DNNL_ARG_DST as `dst` (a reorder's DNNL_ARG_FROM
// and DNNL_ARG_TO are the same numbers).
std::unique_ptr<Case> src_to_dst_case(dnnl::primitive prim, const dnnl::memory::desc &src, const Buffer &x,
                                      const dnnl::memory::desc &dst, anydnnDataType_t dt, int64_t n);

}  // namespace anydnn_bench::onednn
