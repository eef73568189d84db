#include "drivers/conv.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/anydnn_util.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench {

const char kConvUsage[] =
    "    --dir=FWD_D|FWD_B (with bias) --fused (bias + relu in one call) --dt=f32|f64|f16|bf16\n"
    "    --tag=nchw|nhwc (filter KCRS|KRSC) --alg=auto|implicit|precomp|direct --mb=N (0: the\n"
    "    problem's); problem: benchdnn's, e.g. mb1ic64ih56oc64oh56kh3ph1n\"res2_branch2b\"\n";

namespace {

const std::initializer_list<std::pair<const char *, ConvProblem::Dir>> kDirs = {
    {"FWD_D", ConvProblem::Dir::fwd_d}, {"FWD_B", ConvProblem::Dir::fwd_b}, {"FWD_I", ConvProblem::Dir::fwd_d},
    {"fwd", ConvProblem::Dir::fwd_d}};

const std::initializer_list<std::pair<const char *, ConvProblem::Alg>> kAlgs = {
    {"auto", ConvProblem::Alg::automatic},
    {"implicit", ConvProblem::Alg::implicit},
    {"precomp", ConvProblem::Alg::precomp},
    {"direct", ConvProblem::Alg::direct}};

std::vector<int> ints(const Dims &d) { return std::vector<int>(d.begin(), d.end()); }

class FilterDesc {
public:
    FilterDesc(anydnnDataType_t dt, const Dims &dims, Tag tag) {
        check(anydnnCreateFilterDescriptor(&d_), "anydnnCreateFilterDescriptor");
        const std::vector<int> dim_a = ints(dims);
        const anydnnStatus_t s = anydnnSetFilterNdDescriptor(
            d_, dt, tag == Tag::nchw ? ANYDNN_TENSOR_NCHW : ANYDNN_TENSOR_NHWC, int(dim_a.size()), dim_a.data());
        if (s != ANYDNN_STATUS_SUCCESS) {
            anydnnDestroyFilterDescriptor(d_);
            check(s, "anydnnSetFilterNdDescriptor");
        }
    }
    ~FilterDesc() { anydnnDestroyFilterDescriptor(d_); }
    FilterDesc(const FilterDesc &) = delete;
    FilterDesc &operator=(const FilterDesc &) = delete;
    operator anydnnFilterDescriptor_t() const { return d_; }

private:
    anydnnFilterDescriptor_t d_ = nullptr;
};

class ConvDesc {
public:
    explicit ConvDesc(const ConvProblem &p) {
        check(anydnnCreateConvolutionDescriptor(&d_), "anydnnCreateConvolutionDescriptor");
        const ConvShape &s = p.shape;
        std::vector<int> pad, stride, dilation;
        for (int a = 3 - p.spatial_rank(); a < 3; ++a) {
            pad.push_back(int(s.p[a]));
            stride.push_back(int(s.s[a]));
            dilation.push_back(int(s.d[a] + 1));  // benchdnn counts from 0, cuDNN from 1
        }
        anydnnStatus_t st = anydnnSetConvolutionNdDescriptor(d_, p.spatial_rank(), pad.data(), stride.data(),
                                                             dilation.data(), ANYDNN_CROSS_CORRELATION,
                                                             compute_type(p.dt));
        if (st == ANYDNN_STATUS_SUCCESS) st = anydnnSetConvolutionGroupCount(d_, int(s.g));
        if (st != ANYDNN_STATUS_SUCCESS) {
            anydnnDestroyConvolutionDescriptor(d_);
            check(st, "anydnnSetConvolutionNdDescriptor");
        }
    }
    ~ConvDesc() { anydnnDestroyConvolutionDescriptor(d_); }
    ConvDesc(const ConvDesc &) = delete;
    ConvDesc &operator=(const ConvDesc &) = delete;
    operator anydnnConvolutionDescriptor_t() const { return d_; }

private:
    anydnnConvolutionDescriptor_t d_ = nullptr;
};

class ReluDesc {
public:
    explicit ReluDesc(bool relu) {
        check(anydnnCreateActivationDescriptor(&d_), "anydnnCreateActivationDescriptor");
        const anydnnStatus_t s = anydnnSetActivationDescriptor(
            d_, relu ? ANYDNN_ACTIVATION_RELU : ANYDNN_ACTIVATION_IDENTITY, ANYDNN_NOT_PROPAGATE_NAN, 0.0);
        if (s != ANYDNN_STATUS_SUCCESS) {
            anydnnDestroyActivationDescriptor(d_);
            check(s, "anydnnSetActivationDescriptor");
        }
    }
    ~ReluDesc() { anydnnDestroyActivationDescriptor(d_); }
    ReluDesc(const ReluDesc &) = delete;
    ReluDesc &operator=(const ReluDesc &) = delete;
    operator anydnnActivationDescriptor_t() const { return d_; }

private:
    anydnnActivationDescriptor_t d_ = nullptr;
};

class AnydnnConv final : public Case {
public:
    AnydnnConv(const ConvProblem &p, anydnnHandle_t h, const Inputs &in)
        : p_(p), h_(h), in_(in), xd_(p.dt, p.src_dims(), p.tag), wd_(p.dt, p.wei_dims(), p.tag), cd_(p),
          yd_(p.dt, p.dst_dims(), p.tag), bd_(p.dt, p.bias_dims(), Tag::nchw), act_(p.fused),
          out_(p.dt, elements(p.dst_dims())) {
        const Dims expected = p.dst_dims();
        std::vector<int> got(expected.size());
        check(anydnnGetConvolutionNdForwardOutputDim(cd_, xd_, wd_, int(got.size()), got.data()),
              "anydnnGetConvolutionNdForwardOutputDim");
        if (Dims(got.begin(), got.end()) != expected)
            throw LibraryError("anydnnGetConvolutionNdForwardOutputDim: " + dims_string(Dims(got.begin(), got.end())) +
                               ", the descriptor gives " + dims_string(expected));
        algo_ = choose_algo();
        size_t ws = 0;
        check(anydnnGetConvolutionForwardWorkspaceSize(h, xd_, wd_, cd_, yd_, algo_, &ws),
              "anydnnGetConvolutionForwardWorkspaceSize");
        workspace_ = Buffer(ANYDNN_DATA_UINT8, static_cast<int64_t>(ws));
    }

    void run() override {
        const Scalar one(1), zero(0);
        const void *x = in_[ConvProblem::kSrc].data(), *w = in_[ConvProblem::kWei].data();
        if (p_.has_bias()) {
            // alpha2 = 0: z (y itself) is not read.
            check(anydnnConvolutionBiasActivationForward(h_, one.get(p_.dt), xd_, x, wd_, w, cd_, algo_,
                                                         workspace_.data(), workspace_.bytes(), zero.get(p_.dt),
                                                         yd_, out_.data(), bd_, in_[ConvProblem::kBias].data(),
                                                         act_, yd_, out_.data()),
                  "anydnnConvolutionBiasActivationForward");
        } else {
            check(anydnnConvolutionForward(h_, one.get(p_.dt), xd_, x, wd_, w, cd_, algo_, workspace_.data(),
                                           workspace_.bytes(), zero.get(p_.dt), yd_, out_.data()),
                  "anydnnConvolutionForward");
        }
    }
    std::vector<Buffer *> outputs() override { return {&out_}; }

private:
    const ConvProblem &p_;
    anydnnHandle_t h_;
    const Inputs &in_;
    TensorDesc xd_;
    FilterDesc wd_;
    ConvDesc cd_;
    TensorDesc yd_, bd_;
    ReluDesc act_;
    Buffer out_, workspace_;
    anydnnConvolutionFwdAlgo_t algo_ = ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;

    // --alg=auto: the first supported algorithm of the _v7 heuristic.
    anydnnConvolutionFwdAlgo_t choose_algo() const {
        switch (p_.alg) {
        case ConvProblem::Alg::implicit: return ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
        case ConvProblem::Alg::precomp: return ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
        case ConvProblem::Alg::direct: return ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT;
        default: break;
        }
        anydnnConvolutionFwdAlgoPerf_t perf[ANYDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int count = 0;
        check(anydnnGetConvolutionForwardAlgorithm_v7(h_, xd_, wd_, cd_, yd_, ANYDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                      &count, perf),
              "anydnnGetConvolutionForwardAlgorithm_v7");
        for (int i = 0; i < count; ++i)
            if (perf[i].status == ANYDNN_STATUS_SUCCESS) return perf[i].algo;
        throw Unsupported("anydnnGetConvolutionForwardAlgorithm_v7: no algorithm takes this problem");
    }
};

class ConvDriver final : public Driver {
public:
    bool parse_option(std::string_view key, std::string_view value) override {
        const std::string option = "--" + std::string(key);
        if (key == "dir")
            p_.dir = parse_choice(value, option, kDirs);
        else if (key == "fused")  // --fused alone is --fused=true
            p_.fused = value.empty() || parse_choice<bool>(value, option, {{"true", true}, {"false", false}});
        else if (key == "dt")
            p_.dt = parse_float_dt(value, option);
        else if (key == "tag")
            p_.tag = parse_tag(value, option);
        else if (key == "alg")
            p_.alg = parse_choice(value, option, kAlgs);
        else if (key == "mb")
            mb_ = parse_int(value, option, 0);
        else
            return false;
        return true;
    }

    std::unique_ptr<Problem> make_problem(std::string_view descriptor) const override {
        auto p = std::make_unique<ConvProblem>(p_);
        p->shape = parse_conv_shape(descriptor);
        if (mb_ > 0) p->shape.mb = mb_;
        const std::string where = "conv problem '" + std::string(descriptor) + "': ";
        constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
        const std::pair<const char *, Dims> tensors[] = {
            {"src", p->src_dims()}, {"wei", p->wei_dims()}, {"dst", p->dst_dims()}};
        for (const auto &[field, dims] : tensors)
            if (elements(dims) > kMax)
                throw ParseError(where + field + " " + dims_string(dims) + " has more than 2^31 - 1 elements");
        return p;
    }

private:
    ConvProblem p_;
    int64_t mb_ = 0;  // --mb; 0: the descriptor's
};

// The spatial sizes of `v` in anydnn's order: (d,) h, w.
Dims spatial(const ConvProblem &p, const int64_t *v) {
    Dims d;
    for (int a = 3 - p.spatial_rank(); a < 3; ++a) d.push_back(v[a]);
    return d;
}

Dims concat(Dims head, const Dims &tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
}

}  // namespace

Dims ConvProblem::src_dims() const { return concat({shape.mb, shape.ic}, spatial(*this, shape.i)); }
Dims ConvProblem::wei_dims() const { return concat({shape.oc, shape.ic / shape.g}, spatial(*this, shape.k)); }
Dims ConvProblem::dst_dims() const { return concat({shape.mb, shape.oc}, spatial(*this, shape.o)); }
Dims ConvProblem::bias_dims() const { return concat({1, shape.oc}, Dims(size_t(spatial_rank()), 1)); }

std::string ConvProblem::repro() const {
    return std::string("--conv --dir=") + choice_name(dir, kDirs) + (fused ? " --fused" : "") + " --dt=" +
           dt_name(dt) + " --tag=" + tag_name(tag) + " --alg=" + choice_name(alg, kAlgs) + " " + to_string(shape);
}

double ConvProblem::bytes() const {
    const int64_t n = elements(src_dims()) + elements(wei_dims()) + elements(dst_dims()) + (has_bias() ? shape.oc : 0);
    return double(n * int64_t(dt_size(dt)));
}

double ConvProblem::tolerance() const {
    // Each output is a dot product of ic/g * taps terms, summed in different
    // orders by the two libraries: rounding noise grows like its square root.
    const double length = double(shape.reduction_length());
    return storage_tolerance(dt) * std::max(1.0, std::sqrt(length) / 16);
}

Inputs ConvProblem::make_inputs(anydnnHandle_t, uint64_t seed) const {
    Inputs in;
    in.emplace_back(dt, elements(src_dims()));
    in.emplace_back(dt, elements(wei_dims()));
    in[kSrc].fill_uniform(seed, 0.25, 1, true);
    in[kWei].fill_uniform(seed + 1, 0.25, 1, true);
    if (has_bias()) {
        in.emplace_back(dt, shape.oc);
        in[kBias].fill_uniform(seed + 2, 0.25, 1, true);
    }
    return in;
}

std::unique_ptr<Case> ConvProblem::anydnn_case(anydnnHandle_t h, const Inputs &in) const {
    return std::make_unique<AnydnnConv>(*this, h, in);
}

std::unique_ptr<Case> ConvProblem::onednn_case(const Inputs &in) const { return onednn::conv_case(*this, in); }

std::unique_ptr<Case> ConvProblem::onednn_reorder_case(const Inputs &in) const {
    return onednn::conv_case(*this, in, true);
}

std::unique_ptr<Driver> make_conv_driver() { return std::make_unique<ConvDriver>(); }

}  // namespace anydnn_bench
