#include "drivers/conv.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/anydnn_util.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/problem_driver.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench {

const char kConvUsage[] =
    "    --dir=FWD_D|FWD_B (with bias)|BWD_D (data)|BWD_W (weights)|BWD_B (bias alone)\n"
    "    --fused (forward: bias + relu in one call) --dt=f32|f64|f16|bf16 --tag=nchw|nhwc\n"
    "    (filter KCRS|KRSC) --alg=auto|implicit|precomp|direct|winograd (forward), auto|algo0|algo1|winograd\n"
    "    (BWD_D, BWD_W), auto (BWD_B) --mb=N (0: the problem's); problem: benchdnn's, e.g.\n"
    "    mb1ic64ih56oc64oh56kh3ph1n\"res2_branch2b\"\n";

namespace {

using Tensor = ConvProblem::Tensor;
using Dir = ConvProblem::Dir;
using Alg = ConvProblem::Alg;

// The first name of each value is the reproducer's.
const std::initializer_list<std::pair<const char *, Dir>> kDirs = {
    {"FWD_D", Dir::fwd_d}, {"FWD_B", Dir::fwd_b}, {"FWD_I", Dir::fwd_d}, {"fwd", Dir::fwd_d},
    {"BWD_D", Dir::bwd_d}, {"bwd_d", Dir::bwd_d}, {"BWD_W", Dir::bwd_w}, {"bwd_w", Dir::bwd_w},
    {"BWD_B", Dir::bwd_b}, {"bwd_b", Dir::bwd_b}};

const std::initializer_list<std::pair<const char *, Alg>> kAlgs = {
    {"auto", Alg::automatic}, {"implicit", Alg::implicit}, {"precomp", Alg::precomp},
    {"direct", Alg::direct},  {"winograd", Alg::winograd}, {"algo0", Alg::algo0},   {"algo1", Alg::algo1}};

// winograd is forward, BWD_D and BWD_W (WINOGRAD_NONFUSED).
bool forward_alg(Alg a) { return a == Alg::implicit || a == Alg::precomp || a == Alg::direct; }
bool backward_alg(Alg a) { return a == Alg::algo0 || a == Alg::algo1; }

// ParseError when --alg or --fused does not apply to --dir (options persist
// from problem to problem, so the pair is checked per problem).
void check_options(const ConvProblem &p, const std::string &where) {
    const std::string dir = std::string("--dir=") + choice_name(p.dir, kDirs);
    const std::string alg = std::string("--alg=") + choice_name(p.alg, kAlgs);
    if (p.fused && p.backward()) throw ParseError(where + "--fused is forward only, not for " + dir);
    if (!p.backward() && backward_alg(p.alg))
        throw ParseError(where + alg + " is a backward algorithm; " + dir + " takes auto|implicit|precomp|direct|winograd");
    if (p.dir == Dir::bwd_b && p.alg != Alg::automatic)
        throw ParseError(where + alg + ": " + dir + " has no algorithm to choose; it takes auto");
    if (p.backward() && forward_alg(p.alg)) {
        throw ParseError(where + alg + " is a forward algorithm; " + dir + " takes auto|algo0|algo1|winograd");
    }
}

std::vector<int> ints(const Dims &d) { return std::vector<int>(d.begin(), d.end()); }

class FilterDesc
    : public Owned<anydnnFilterDescriptor_t, anydnnCreateFilterDescriptor, anydnnDestroyFilterDescriptor> {
public:
    FilterDesc(anydnnDataType_t dt, const Dims &dims, Tag tag) : Owned("anydnnCreateFilterDescriptor") {
        const std::vector<int> dim_a = ints(dims);
        check(anydnnSetFilterNdDescriptor(*this, dt, tag == Tag::nchw ? ANYDNN_TENSOR_NCHW : ANYDNN_TENSOR_NHWC,
                                          int(dim_a.size()), dim_a.data()),
              "anydnnSetFilterNdDescriptor");
    }
};

class ConvDesc : public Owned<anydnnConvolutionDescriptor_t, anydnnCreateConvolutionDescriptor,
                              anydnnDestroyConvolutionDescriptor> {
public:
    explicit ConvDesc(const ConvProblem &p) : Owned("anydnnCreateConvolutionDescriptor") {
        const ConvShape &s = p.shape;
        std::vector<int> pad, stride, dilation;
        for (int a = 3 - p.spatial_rank(); a < 3; ++a) {
            pad.push_back(int(s.p[a]));
            stride.push_back(int(s.s[a]));
            dilation.push_back(int(s.d[a] + 1));  // benchdnn counts from 0, cuDNN from 1
        }
        anydnnStatus_t st = anydnnSetConvolutionNdDescriptor(*this, p.spatial_rank(), pad.data(), stride.data(),
                                                             dilation.data(), ANYDNN_CROSS_CORRELATION,
                                                             compute_type(p.dt));
        if (st == ANYDNN_STATUS_SUCCESS) st = anydnnSetConvolutionGroupCount(*this, int(s.g));
        check(st, "anydnnSetConvolutionNdDescriptor");
    }
};

class ReluDesc : public Owned<anydnnActivationDescriptor_t, anydnnCreateActivationDescriptor,
                              anydnnDestroyActivationDescriptor> {
public:
    explicit ReluDesc(bool relu) : Owned("anydnnCreateActivationDescriptor") {
        check(anydnnSetActivationDescriptor(*this, relu ? ANYDNN_ACTIVATION_RELU : ANYDNN_ACTIVATION_IDENTITY,
                                            ANYDNN_NOT_PROPAGATE_NAN, 0.0),
              "anydnnSetActivationDescriptor");
    }
};

// The first algorithm of a _v7 ranking that takes the problem (--alg=auto).
template <class Perf>
auto first_supported(const Perf *perf, int count, const char *call) {
    for (int i = 0; i < count; ++i)
        if (perf[i].status == ANYDNN_STATUS_SUCCESS) return perf[i].algo;
    throw Unsupported(std::string(call) + ": no algorithm takes this problem");
}

// What every direction shares: the forward's descriptors (the backward calls
// take x/dx as x, w/dw as w and dy as y), the output buffer and the workspace.
class AnydnnConvCase : public Case {
public:
    std::vector<Buffer *> outputs() override { return {&out_}; }

protected:
    AnydnnConvCase(const ConvProblem &p, anydnnHandle_t h, const Inputs &in)
        : p_(p), h_(h), xd_(p.dt, p.src_dims(), p.tag), wd_(p.dt, p.wei_dims(), p.tag), cd_(p),
          yd_(p.dt, p.dst_dims(), p.tag), bd_(p.dt, p.bias_dims(), Tag::nchw),
          out_(p.dt, elements(p.dims(p.output()))) {
        const Dims expected = p.dst_dims();
        std::vector<int> got(expected.size());
        check(anydnnGetConvolutionNdForwardOutputDim(cd_, xd_, wd_, int(got.size()), got.data()),
              "anydnnGetConvolutionNdForwardOutputDim");
        if (Dims(got.begin(), got.end()) != expected)
            throw LibraryError("anydnnGetConvolutionNdForwardOutputDim: " + dims_string(Dims(got.begin(), got.end())) +
                               ", the descriptor gives " + dims_string(expected));
        for (Tensor t : p.inputs()) inputs_[size_t(t)] = p.input(in, t).data();
    }

    const void *input(Tensor t) const { return inputs_[size_t(t)]; }
    void allocate_workspace(size_t bytes) { workspace_ = Buffer(ANYDNN_DATA_UINT8, static_cast<int64_t>(bytes)); }

    const ConvProblem &p_;
    anydnnHandle_t h_;
    std::array<const void *, 4> inputs_{};  // by Tensor, looked up once: run() is timed
    TensorDesc xd_;
    FilterDesc wd_;
    ConvDesc cd_;
    TensorDesc yd_, bd_;
    Buffer out_, workspace_;
    const Scalar one_{1}, zero_{0};  // alpha, beta
};

class AnydnnConvFwd final : public AnydnnConvCase {
public:
    AnydnnConvFwd(const ConvProblem &p, anydnnHandle_t h, const Inputs &in)
        : AnydnnConvCase(p, h, in), act_(p.fused), algo_(choose_algo()) {
        size_t ws = 0;
        check(anydnnGetConvolutionForwardWorkspaceSize(h, xd_, wd_, cd_, yd_, algo_, &ws),
              "anydnnGetConvolutionForwardWorkspaceSize");
        allocate_workspace(ws);
    }

    void run() override {
        const void *x = input(Tensor::src), *w = input(Tensor::wei);
        const anydnnDataType_t dt = p_.dt;
        if (p_.has_bias()) {
            // alpha2 = 0: z (y itself) is not read.
            check(anydnnConvolutionBiasActivationForward(h_, one_.get(dt), xd_, x, wd_, w, cd_, algo_,
                                                         workspace_.data(), workspace_.bytes(), zero_.get(dt), yd_,
                                                         out_.data(), bd_, input(Tensor::bias), act_, yd_,
                                                         out_.data()),
                  "anydnnConvolutionBiasActivationForward");
        } else {
            check(anydnnConvolutionForward(h_, one_.get(dt), xd_, x, wd_, w, cd_, algo_, workspace_.data(),
                                           workspace_.bytes(), zero_.get(dt), yd_, out_.data()),
                  "anydnnConvolutionForward");
        }
    }

private:
    ReluDesc act_;
    anydnnConvolutionFwdAlgo_t algo_;

    anydnnConvolutionFwdAlgo_t choose_algo() const {
        switch (p_.alg) {
        case Alg::implicit: return ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
        case Alg::precomp: return ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
        case Alg::direct: return ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT;
        case Alg::winograd: return ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
        default: break;
        }
        anydnnConvolutionFwdAlgoPerf_t perf[ANYDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int count = 0;
        check(anydnnGetConvolutionForwardAlgorithm_v7(h_, xd_, wd_, cd_, yd_, ANYDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                      &count, perf),
              "anydnnGetConvolutionForwardAlgorithm_v7");
        return first_supported(perf, count, "anydnnGetConvolutionForwardAlgorithm_v7");
    }
};

// BWD_D: dx = conv^T(dy, w).
class AnydnnConvBwdData final : public AnydnnConvCase {
public:
    AnydnnConvBwdData(const ConvProblem &p, anydnnHandle_t h, const Inputs &in)
        : AnydnnConvCase(p, h, in), algo_(choose_algo()) {
        size_t ws = 0;
        check(anydnnGetConvolutionBackwardDataWorkspaceSize(h, wd_, yd_, cd_, xd_, algo_, &ws),
              "anydnnGetConvolutionBackwardDataWorkspaceSize");
        allocate_workspace(ws);
    }

    void run() override {
        check(anydnnConvolutionBackwardData(h_, one_.get(p_.dt), wd_, input(Tensor::wei), yd_, input(Tensor::dst),
                                            cd_, algo_, workspace_.data(), workspace_.bytes(), zero_.get(p_.dt),
                                            xd_, out_.data()),
              "anydnnConvolutionBackwardData");
    }

private:
    anydnnConvolutionBwdDataAlgo_t algo_;

    anydnnConvolutionBwdDataAlgo_t choose_algo() const {
        if (p_.alg == Alg::algo0) return ANYDNN_CONVOLUTION_BWD_DATA_ALGO_0;
        if (p_.alg == Alg::algo1) return ANYDNN_CONVOLUTION_BWD_DATA_ALGO_1;
        if (p_.alg == Alg::winograd) return ANYDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
        anydnnConvolutionBwdDataAlgoPerf_t perf[ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        int count = 0;
        check(anydnnGetConvolutionBackwardDataAlgorithm_v7(h_, wd_, yd_, cd_, xd_,
                                                           ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, perf),
              "anydnnGetConvolutionBackwardDataAlgorithm_v7");
        return first_supported(perf, count, "anydnnGetConvolutionBackwardDataAlgorithm_v7");
    }
};

// BWD_W: dw = dconv/dw(x, dy), summed over the batch.
class AnydnnConvBwdFilter final : public AnydnnConvCase {
public:
    AnydnnConvBwdFilter(const ConvProblem &p, anydnnHandle_t h, const Inputs &in)
        : AnydnnConvCase(p, h, in), algo_(choose_algo()) {
        size_t ws = 0;
        check(anydnnGetConvolutionBackwardFilterWorkspaceSize(h, xd_, yd_, cd_, wd_, algo_, &ws),
              "anydnnGetConvolutionBackwardFilterWorkspaceSize");
        allocate_workspace(ws);
    }

    void run() override {
        check(anydnnConvolutionBackwardFilter(h_, one_.get(p_.dt), xd_, input(Tensor::src), yd_, input(Tensor::dst),
                                              cd_, algo_, workspace_.data(), workspace_.bytes(), zero_.get(p_.dt),
                                              wd_, out_.data()),
              "anydnnConvolutionBackwardFilter");
    }

private:
    anydnnConvolutionBwdFilterAlgo_t algo_;

    anydnnConvolutionBwdFilterAlgo_t choose_algo() const {
        if (p_.alg == Alg::algo0) return ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_0;
        if (p_.alg == Alg::algo1) return ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
        if (p_.alg == Alg::winograd) return ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
        anydnnConvolutionBwdFilterAlgoPerf_t perf[ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        int count = 0;
        check(anydnnGetConvolutionBackwardFilterAlgorithm_v7(h_, xd_, yd_, cd_, wd_,
                                                             ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count, perf),
              "anydnnGetConvolutionBackwardFilterAlgorithm_v7");
        return first_supported(perf, count, "anydnnGetConvolutionBackwardFilterAlgorithm_v7");
    }
};

// BWD_B: db = dy summed over all but the channels (no algorithm, no workspace).
class AnydnnConvBwdBias final : public AnydnnConvCase {
public:
    AnydnnConvBwdBias(const ConvProblem &p, anydnnHandle_t h, const Inputs &in) : AnydnnConvCase(p, h, in) {}

    void run() override {
        check(anydnnConvolutionBackwardBias(h_, one_.get(p_.dt), yd_, input(Tensor::dst), zero_.get(p_.dt), bd_,
                                            out_.data()),
              "anydnnConvolutionBackwardBias");
    }
};

class ConvDriver final : public ProblemDriver<ConvProblem> {
    bool option(std::string_view key, std::string_view value, const std::string &option) override {
        if (key == "dir")
            p_.dir = parse_choice(value, option, kDirs);
        else if (key == "fused")  // --fused alone is --fused=true
            p_.fused = value.empty() || parse_choice<bool>(value, option, {{"true", true}, {"false", false}});
        else if (key == "alg")
            p_.alg = parse_choice(value, option, kAlgs);
        else if (key == "mb")
            parse_mb(value, option);
        else
            return parse_dt_or_tag(key, value, option);
        return true;
    }

    void describe(ConvProblem &p, std::string_view descriptor) const override {
        p.shape = parse_conv_shape(descriptor);
        override_mb(p.shape.mb);
        const std::string where = "conv problem '" + std::string(descriptor) + "': ";
        check_options(p, where);
        constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
        const std::pair<const char *, Dims> tensors[] = {
            {"src", p.src_dims()}, {"wei", p.wei_dims()}, {"dst", p.dst_dims()}};
        for (const auto &[field, dims] : tensors)
            if (elements(dims) > kMax)
                throw ParseError(where + field + " " + dims_string(dims) + " has more than 2^31 - 1 elements");
    }
};

}  // namespace

std::vector<Tensor> ConvProblem::inputs() const {
    switch (dir) {
    case Dir::bwd_d: return {Tensor::wei, Tensor::dst};
    case Dir::bwd_w: return {Tensor::src, Tensor::dst};
    case Dir::bwd_b: return {Tensor::dst};
    default: break;
    }
    if (has_bias()) return {Tensor::src, Tensor::wei, Tensor::bias};
    return {Tensor::src, Tensor::wei};
}

Tensor ConvProblem::output() const {
    switch (dir) {
    case Dir::bwd_d: return Tensor::src;
    case Dir::bwd_w: return Tensor::wei;
    case Dir::bwd_b: return Tensor::bias;
    default: return Tensor::dst;
    }
}

const Buffer &ConvProblem::input(const Inputs &in, Tensor t) const {
    const std::vector<Tensor> order = inputs();
    const auto it = std::find(order.begin(), order.end(), t);
    if (it == order.end() || size_t(it - order.begin()) >= in.size())
        throw std::logic_error("conv: the tensor asked for is not an input of this direction");
    return in[size_t(it - order.begin())];
}

Dims ConvProblem::dims(Tensor t) const {
    switch (t) {
    case Tensor::src: return shape.tensor_dims(shape.mb, shape.ic, shape.i);
    case Tensor::wei: return shape.tensor_dims(shape.oc, shape.ic / shape.g, shape.k);
    case Tensor::bias: return shape.tensor_dims(1, shape.oc, {1, 1, 1});
    case Tensor::dst: break;
    }
    return shape.tensor_dims(shape.mb, shape.oc, shape.o);
}

std::string ConvProblem::repro() const {
    return std::string("--conv --dir=") + choice_name(dir, kDirs) + (fused ? " --fused" : "") + " --dt=" +
           dt_name(dt) + " --tag=" + tag_name(tag) + " --alg=" + choice_name(alg, kAlgs) + " " + to_string(shape);
}

double ConvProblem::bytes() const {
    int64_t n = elements(dims(output()));
    for (Tensor t : inputs()) n += elements(dims(t));
    return double(n * int64_t(dt_size(dt)));
}

double ConvProblem::tolerance() const {
    // Each output is a sum, taken in different orders by the two libraries:
    // rounding noise grows like the square root of its length. Forward: a
    // dot product of ic/g * taps terms; BWD_D: each dx gathers oc/g * taps
    // (at most); BWD_W and BWD_B: each dw or db sums over the batch and the
    // output pixels.
    const ConvShape &s = shape;
    const int64_t taps = s.k[0] * s.k[1] * s.k[2];
    int64_t length = s.reduction_length();
    if (dir == Dir::bwd_d) length = s.oc / s.g * taps;
    if (dir == Dir::bwd_w || dir == Dir::bwd_b) length = s.mb * s.output_spatial();
    return storage_tolerance(dt) * std::max(1.0, std::sqrt(double(length)) / 16);
}

Inputs ConvProblem::make_inputs(anydnnHandle_t, uint64_t seed) const {
    // Each tensor has its own seed, whatever the direction reads (the
    // forward's src, wei, bias keep seed, seed + 1, seed + 2).
    Inputs in;
    for (Tensor t : inputs()) {
        in.emplace_back(dt, elements(dims(t)));
        in.back().fill_uniform(seed + uint64_t(t), 0.25, 1, true);
    }
    return in;
}

std::unique_ptr<Case> ConvProblem::anydnn_case(anydnnHandle_t h, const Inputs &in) const {
    switch (dir) {
    case Dir::bwd_d: return std::make_unique<AnydnnConvBwdData>(*this, h, in);
    case Dir::bwd_w: return std::make_unique<AnydnnConvBwdFilter>(*this, h, in);
    case Dir::bwd_b: return std::make_unique<AnydnnConvBwdBias>(*this, h, in);
    default: return std::make_unique<AnydnnConvFwd>(*this, h, in);
    }
}

std::unique_ptr<Case> ConvProblem::onednn_case(const Inputs &in) const { return onednn::conv_case(*this, in); }

std::unique_ptr<Case> ConvProblem::onednn_reorder_case(const Inputs &in) const {
    // oneDNN's BWD_B (a reduction) runs on the user's diff_dst: no reorders.
    if (dir == Dir::bwd_b) return nullptr;
    return onednn::conv_case(*this, in, true);
}

std::unique_ptr<Driver> make_conv_driver() { return std::make_unique<ConvDriver>(); }

}  // namespace anydnn_bench
