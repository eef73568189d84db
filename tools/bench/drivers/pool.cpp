#include "drivers/pool.hpp"

#include "core/anydnn_util.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/problem_driver.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench {

const char kPoolUsage[] =
    "    --dir=fwd|bwd --alg=max|avg_np|avg_p (exclude / include padding) --dt=f32|f64|f16|bf16 --tag=nchw|nhwc\n"
    "    --mb=N (0: the problem's); problem: benchdnn's, e.g. mb16ic64_ih112oh56_kh3sh2ph1\n";

namespace {

const std::initializer_list<std::pair<const char *, anydnnPoolingMode_t>> kAlgs = {
    {"max", ANYDNN_POOLING_MAX},
    {"avg_np", ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING},
    {"avg_p", ANYDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING},
    {"pooling_max", ANYDNN_POOLING_MAX},
    {"pooling_avg_exclude_padding", ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING},
    {"pooling_avg_include_padding", ANYDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING}};

class PoolDesc
    : public Owned<anydnnPoolingDescriptor_t, anydnnCreatePoolingDescriptor, anydnnDestroyPoolingDescriptor> {
public:
    explicit PoolDesc(const PoolProblem &p) : Owned("anydnnCreatePoolingDescriptor") {
        std::vector<int> window, pad, stride;
        for (int a = 3 - p.spatial_rank(); a < 3; ++a) {
            window.push_back(int(p.shape.k[a]));
            pad.push_back(int(p.shape.p[a]));
            stride.push_back(int(p.shape.s[a]));
        }
        check(anydnnSetPoolingNdDescriptor(*this, p.alg, ANYDNN_NOT_PROPAGATE_NAN, p.spatial_rank(), window.data(),
                                           pad.data(), stride.data()),
              "anydnnSetPoolingNdDescriptor");
    }
};

void forward(anydnnHandle_t h, const PoolDesc &pd, const TensorDesc &xd, const TensorDesc &yd, anydnnDataType_t dt,
             const Buffer &x, Buffer &y) {
    const Scalar one(1), zero(0);
    check(anydnnPoolingForward(h, pd, one.get(dt), xd, x.data(), zero.get(dt), yd, y.data()), "anydnnPoolingForward");
}

class AnydnnPool final : public AnydnnCase<PoolProblem> {
public:
    AnydnnPool(const PoolProblem &p, anydnnHandle_t h, const Inputs &in)
        : AnydnnCase(p, h, in), pd_(p), xd_(p.dt, p.src_dims(), p.tag), yd_(p.dt, p.dst_dims(), p.tag),
          out_(p.dt, elements(p.backward ? p.src_dims() : p.dst_dims())) {
        const Dims expected = p.dst_dims();
        std::vector<int> got(expected.size());
        check(anydnnGetPoolingNdForwardOutputDim(pd_, xd_, int(got.size()), got.data()),
              "anydnnGetPoolingNdForwardOutputDim");
        if (Dims(got.begin(), got.end()) != expected)
            throw LibraryError("anydnnGetPoolingNdForwardOutputDim: " + dims_string(Dims(got.begin(), got.end())) +
                               ", the descriptor gives " + dims_string(expected));
    }

    void run() override {
        if (!p_.backward) return forward(h_, pd_, xd_, yd_, p_.dt, in_[PoolProblem::kSrc], out_);
        const Scalar one(1), zero(0);
        check(anydnnPoolingBackward(h_, pd_, one.get(p_.dt), yd_, in_[PoolProblem::kDst].data(), yd_,
                                    in_[PoolProblem::kDiffDst].data(), xd_, in_[PoolProblem::kSrc].data(),
                                    zero.get(p_.dt), xd_, out_.data()),
              "anydnnPoolingBackward");
    }
    std::vector<Buffer *> outputs() override { return {&out_}; }

private:
    PoolDesc pd_;
    TensorDesc xd_, yd_;
    Buffer out_;
};

// benchdnn's pool descriptor through the conv parser: '_' separators
// dropped (not the one of "_n" before a name) and oc taken as ic.
ConvShape parse_pool_shape(std::string_view text) {
    std::string conv = "oc1";
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '_' && !(i + 1 < text.size() && text[i + 1] == 'n')) continue;
        if (text[i] == 'n' || text[i] == '_') {
            conv += text.substr(i);  // the name, verbatim
            break;
        }
        conv += text[i];
    }
    ConvShape s = parse_conv_shape(conv);
    const std::string where = "pool problem '" + std::string(text) + "': ";
    if (s.g != 1) throw ParseError(where + "pooling has no groups (g)");
    for (int a = 0; a < 3; ++a) {
        if (s.d[a] != 0) throw ParseError(where + "pooling has no dilation (d" + std::string(1, "dhw"[a]) + ")");
        if (s.p[a] >= s.k[a])
            throw ParseError(where + "padding " + std::to_string(s.p[a]) + " is not smaller than the window " +
                             std::to_string(s.k[a]));
    }
    s.oc = s.ic;
    return s;
}

class PoolDriver final : public ProblemDriver<PoolProblem, AnydnnPool, onednn::pool_case> {
    bool option(std::string_view key, std::string_view value, const std::string &option) override {
        if (key == "alg")
            p_.alg = parse_choice(value, option, kAlgs);
        else if (key == "dir")
            p_.backward = parse_choice<bool>(value, option, {{"fwd", false}, {"bwd", true}, {"FWD_D", false},
                                                             {"FWD_I", false}, {"BWD_D", true}});
        else if (key == "mb")
            parse_mb(value, option);
        else
            return parse_dt_or_tag(key, value, option);
        return true;
    }

    void describe(PoolProblem &p, std::string_view descriptor) const override {
        p.shape = parse_pool_shape(descriptor);
        override_mb(p.shape.mb);
    }
};

}  // namespace

Dims PoolProblem::src_dims() const { return shape.tensor_dims(shape.mb, shape.ic, shape.i); }
Dims PoolProblem::dst_dims() const { return shape.tensor_dims(shape.mb, shape.ic, shape.o); }

std::string PoolProblem::repro() const {
    ConvShape s = shape;
    std::string conv = to_string(s);  // "mb..ic..oc..": drop the oc field
    const size_t oc = conv.find("oc");
    if (oc != std::string::npos) {
        size_t end = oc + 2;
        while (end < conv.size() && conv[end] >= '0' && conv[end] <= '9') ++end;
        conv.erase(oc, end - oc);
    }
    return std::string("--pool --dir=") + (backward ? "bwd" : "fwd") + " --alg=" + choice_name(alg, kAlgs) +
           " --dt=" + dt_name(dt) + " --tag=" + tag_name(tag) + " " + conv;
}

double PoolProblem::bytes() const {
    // forward: read x, write y; backward: read dy, write dx, and for MAX
    // read x too (which element of a window is the max: cuDNN's API has no
    // workspace; oneDNN reads its own, a byte or more per element of y).
    const int64_t x = elements(src_dims()), y = elements(dst_dims());
    const int64_t n = backward ? y + x + (alg == ANYDNN_POOLING_MAX ? x : 0) : x + y;
    return double(n * int64_t(dt_size(dt)));
}

double PoolProblem::tolerance() const { return storage_tolerance(dt); }

Inputs PoolProblem::make_inputs(anydnnHandle_t h, uint64_t seed) const {
    Inputs in;
    in.emplace_back(dt, elements(src_dims()));
    in[kSrc].fill_uniform(seed, -1, 1);
    if (backward) {
        in.emplace_back(dt, elements(dst_dims()));
        in.emplace_back(dt, elements(dst_dims()));
        const TensorDesc xd(dt, src_dims(), tag), yd(dt, dst_dims(), tag);
        forward(h, PoolDesc(*this), xd, yd, dt, in[kSrc], in[kDst]);
        in[kDiffDst].fill_uniform(seed + 1, -1, 1);
    }
    return in;
}

std::unique_ptr<Driver> make_pool_driver() { return std::make_unique<PoolDriver>(); }

}  // namespace anydnn_bench
