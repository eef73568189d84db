#include "drivers/eltwise.hpp"

#include "core/anydnn_util.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/problem_driver.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench {

const char kEltwiseUsage[] =
    "    --dir=fwd|bwd --alg=relu|tanh|sigmoid|gelu|gelu_tanh|elu|swish|clip|leaky_relu|\n"
    "    identity|hardswish|mish|softplus --alpha=A (clip threshold, elu alpha, leaky slope,\n"
    "    swish beta) --dt=f32|f64|f16|bf16 --tag=nchw|nhwc; problem: 16x64x56x56\n";

namespace {

struct AlgInfo {
    const char *name;
    EltwiseAlg alg;
    anydnnActivationMode_t mode;
    bool has_alpha;
    double default_alpha;
};

constexpr AlgInfo kAlgs[] = {
    {"relu", EltwiseAlg::relu, ANYDNN_ACTIVATION_RELU, false, 0},
    {"tanh", EltwiseAlg::tanh, ANYDNN_ACTIVATION_TANH, false, 0},
    {"sigmoid", EltwiseAlg::sigmoid, ANYDNN_ACTIVATION_SIGMOID, false, 0},
    {"gelu", EltwiseAlg::gelu, ANYDNN_ACTIVATION_GELU, false, 0},
    {"gelu_tanh", EltwiseAlg::gelu_tanh, ANYDNN_ACTIVATION_GELU_TANH, false, 0},
    {"elu", EltwiseAlg::elu, ANYDNN_ACTIVATION_ELU, true, 1.0},
    {"swish", EltwiseAlg::swish, ANYDNN_ACTIVATION_SWISH, true, 1.0},
    {"clip", EltwiseAlg::clip, ANYDNN_ACTIVATION_CLIPPED_RELU, true, 6.0},
    {"leaky_relu", EltwiseAlg::leaky_relu, ANYDNN_ACTIVATION_LEAKY_RELU, true, 0.01},
    {"identity", EltwiseAlg::identity, ANYDNN_ACTIVATION_IDENTITY, false, 0},
    {"hardswish", EltwiseAlg::hardswish, ANYDNN_ACTIVATION_HARDSWISH, false, 0},
    {"mish", EltwiseAlg::mish, ANYDNN_ACTIVATION_MISH, false, 0},
    {"softplus", EltwiseAlg::softplus, ANYDNN_ACTIVATION_SOFTPLUS, false, 0},
};

const AlgInfo &info(EltwiseAlg alg) {
    for (const AlgInfo &a : kAlgs)
        if (a.alg == alg) return a;
    return kAlgs[0];
}

class ActivationDesc : public Owned<anydnnActivationDescriptor_t, anydnnCreateActivationDescriptor,
                                    anydnnDestroyActivationDescriptor> {
public:
    explicit ActivationDesc(const EltwiseProblem &p) : Owned("anydnnCreateActivationDescriptor") {
        anydnnStatus_t s = anydnnSetActivationDescriptor(*this, info(p.alg).mode, ANYDNN_NOT_PROPAGATE_NAN,
                                                         p.alg == EltwiseAlg::swish ? 0.0 : p.alpha);
        if (s == ANYDNN_STATUS_SUCCESS && p.alg == EltwiseAlg::swish)
            s = anydnnSetActivationDescriptorSwishBeta(*this, p.alpha);
        check(s, "anydnnSetActivationDescriptor");
    }
};

void forward(anydnnHandle_t h, const ActivationDesc &act, const TensorDesc &desc, anydnnDataType_t dt,
             const Buffer &x, Buffer &y) {
    const Scalar one(1), zero(0);
    check(anydnnActivationForward(h, act, one.get(dt), desc, x.data(), zero.get(dt), desc, y.data()),
          "anydnnActivationForward");
}

class AnydnnEltwise final : public AnydnnCase<EltwiseProblem> {
public:
    AnydnnEltwise(const EltwiseProblem &p, anydnnHandle_t h, const Inputs &in)
        : AnydnnCase(p, h, in), act_(p), desc_(p.dt, at_least_4d(p.dims), p.tag),
          out_(p.dt, elements(p.dims)) {}

    void run() override {
        if (!p_.backward) {
            forward(h_, act_, desc_, p_.dt, in_[EltwiseProblem::kX], out_);
            return;
        }
        const Scalar one(1), zero(0);
        check(anydnnActivationBackward(h_, act_, one.get(p_.dt), desc_, in_[EltwiseProblem::kY].data(), desc_,
                                       in_[EltwiseProblem::kDy].data(), desc_, in_[EltwiseProblem::kX].data(),
                                       zero.get(p_.dt), desc_, out_.data()),
              "anydnnActivationBackward");
    }
    std::vector<Buffer *> outputs() override { return {&out_}; }

private:
    ActivationDesc act_;
    TensorDesc desc_;
    Buffer out_;
};

class EltwiseDriver final : public ProblemDriver<EltwiseProblem, AnydnnEltwise, onednn::eltwise_case> {
    bool option(std::string_view key, std::string_view value, const std::string &option) override {
        if (key == "dir")
            p_.backward = parse_choice<bool>(value, option, {{"fwd", false}, {"bwd", true}, {"FWD_D", false},
                                                             {"FWD_I", false}, {"BWD_D", true}});
        else if (key == "alg")
            p_.alg = parse_alg(value, option);
        else if (key == "alpha") {
            alpha_ = parse_double(value, option);
            alpha_set_ = true;
        } else
            return parse_dt_or_tag(key, value, option);
        return true;
    }

    void describe(EltwiseProblem &p, std::string_view descriptor) const override {
        p.dims = parse_dims(descriptor, "src");
        p.alpha = alpha_set_ ? alpha_ : info(p.alg).default_alpha;
    }

    double alpha_ = 0;
    bool alpha_set_ = false;

    static EltwiseAlg parse_alg(std::string_view value, const std::string &option) {
        for (const AlgInfo &a : kAlgs)
            if (value == a.name) return a.alg;
        std::string expected;
        for (const AlgInfo &a : kAlgs) expected += (expected.empty() ? "" : "|") + std::string(a.name);
        throw ParseError(option + ": unknown value '" + std::string(value) + "' (expected " + expected + ")");
    }
};

}  // namespace

std::string EltwiseProblem::repro() const {
    std::string s = std::string("--eltwise --dir=") + (backward ? "bwd" : "fwd") + " --alg=" + info(alg).name;
    if (info(alg).has_alpha) {
        char a[32];
        std::snprintf(a, sizeof a, "%g", alpha);
        s += std::string(" --alpha=") + a;
    }
    return s + " --dt=" + dt_name(dt) + " --tag=" + tag_name(tag) + " " + dims_string(dims);
}

double EltwiseProblem::bytes() const {
    // forward: read x, write y; backward: read x (or y) and dy, write dx.
    return double(elements(dims) * dt_size(dt)) * (backward ? 3 : 2);
}

double EltwiseProblem::tolerance() const { return storage_tolerance(dt); }

Inputs EltwiseProblem::make_inputs(anydnnHandle_t h, uint64_t seed) const {
    const int64_t n = elements(dims);
    Inputs in;
    in.emplace_back(dt, n);
    in[kX].fill_uniform(seed, -4, 4);
    if (backward) {
        in.emplace_back(dt, n);
        in.emplace_back(dt, n);
        const ActivationDesc act(*this);
        const TensorDesc desc(dt, at_least_4d(dims), tag);
        forward(h, act, desc, dt, in[kX], in[kY]);
        in[kDy].fill_uniform(seed + 1, -1, 1);
    }
    return in;
}

std::unique_ptr<Driver> make_eltwise_driver() { return std::make_unique<EltwiseDriver>(); }

}  // namespace anydnn_bench
