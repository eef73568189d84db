#include "drivers/bnorm.hpp"

#include <cmath>

#include "core/anydnn_util.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/problem_driver.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench {

const char kBnormUsage[] =
    "    --dir=FWD_D|FWD_I|BWD_DW --dt=f32|f64|f16|bf16 --tag=nchw|nhwc; problem: 16x64x56x56\n";
const char kLnormUsage[] = "    --dir=FWD_D|FWD_I|BWD_DW --dt=f32|f64|f16|bf16; problem: rows x length, 512x768\n";

namespace {

using Dir = NormBenchProblem::Dir;

const std::initializer_list<std::pair<const char *, Dir>> kDirs = {
    {"FWD_D", Dir::fwd_d}, {"FWD_I", Dir::fwd_i}, {"BWD_DW", Dir::bwd_dw},
    {"fwd", Dir::fwd_d},   {"bwd", Dir::bwd_dw}};

// The small tensors' type: float, double for double data.
anydnnDataType_t param_dt(anydnnDataType_t dt) { return compute_type(dt); }

class AnydnnNorm final : public AnydnnCase<NormBenchProblem> {
public:
    AnydnnNorm(const NormBenchProblem &p, anydnnHandle_t h, const Inputs &in)
        : AnydnnCase(p, h, in), xd_(p.dt, p.anydnn_dims(), p.tag), pd_(param_dt(p.dt), small_dims(p, true), Tag::nchw),
          sd_(param_dt(p.dt), small_dims(p, false), Tag::nchw) {
        const int64_t n = elements(p.anydnn_dims());
        if (p.dir == Dir::bwd_dw) {
            out_.emplace_back(p.dt, n);
            out_.emplace_back(param_dt(p.dt), p.channels());
            out_.emplace_back(param_dt(p.dt), p.channels());
        } else {
            out_.emplace_back(p.dt, n);
            save_mean_ = Buffer(param_dt(p.dt), p.groups());
            save_inv_ = Buffer(param_dt(p.dt), p.groups());
        }
    }

    void run() override {
        const Scalar one(1), zero(0);
        const void *a = one.get(p_.dt), *b = zero.get(p_.dt);
        const anydnnBatchNormMode_t bn = ANYDNN_BATCHNORM_SPATIAL;
        const anydnnNormMode_t ln = ANYDNN_NORM_LAYER;
        const auto ops = ANYDNN_NORM_OPS_NORM;
        const auto algo = ANYDNN_NORM_ALGO_STANDARD;
        using I = NormBenchProblem::Input;
        switch (p_.dir) {
        case Dir::fwd_d:
            if (!p_.layer)
                check(anydnnBatchNormalizationForwardTraining(h_, bn, a, b, xd_, in_[I::kX].data(), xd_,
                                                              out_[0].data(), pd_, in_[I::kScale].data(),
                                                              in_[I::kShift].data(), 0.1, nullptr, nullptr,
                                                              p_.epsilon, save_mean_.data(), save_inv_.data()),
                      "anydnnBatchNormalizationForwardTraining");
            else
                check(anydnnNormalizationForwardTraining(
                          h_, ln, ops, algo, a, b, xd_, in_[I::kX].data(), pd_, in_[I::kScale].data(),
                          in_[I::kShift].data(), 0.1, sd_, nullptr, nullptr, p_.epsilon, save_mean_.data(),
                          save_inv_.data(), nullptr, nullptr, nullptr, xd_, out_[0].data(), nullptr, 0, nullptr, 0,
                          1),
                      "anydnnNormalizationForwardTraining");
            break;
        case Dir::fwd_i:
            if (!p_.layer)
                check(anydnnBatchNormalizationForwardInference(h_, bn, a, b, xd_, in_[I::kX].data(), xd_,
                                                               out_[0].data(), pd_, in_[I::kScale].data(),
                                                               in_[I::kShift].data(), in_[I::kMean].data(),
                                                               in_[I::kVar].data(), p_.epsilon),
                      "anydnnBatchNormalizationForwardInference");
            else
                check(anydnnNormalizationForwardInference(h_, ln, ops, algo, a, b, xd_, in_[I::kX].data(), pd_,
                                                          in_[I::kScale].data(), in_[I::kShift].data(), sd_,
                                                          in_[I::kMean].data(), in_[I::kVar].data(), nullptr,
                                                          nullptr, nullptr, xd_, out_[0].data(), p_.epsilon, 1),
                      "anydnnNormalizationForwardInference");
            break;
        case Dir::bwd_dw:
            if (!p_.layer)
                check(anydnnBatchNormalizationBackward(h_, bn, a, b, a, b, xd_, in_[I::kX].data(), xd_,
                                                       in_[I::kDy].data(), xd_, out_[0].data(), pd_,
                                                       in_[I::kScale].data(), out_[1].data(), out_[2].data(),
                                                       p_.epsilon, in_[I::kMean].data(), in_[I::kInv].data()),
                      "anydnnBatchNormalizationBackward");
            else
                check(anydnnNormalizationBackward(h_, ln, ops, algo, a, b, a, b, xd_, in_[I::kX].data(), xd_, nullptr,
                                                  xd_, in_[I::kDy].data(), nullptr, nullptr, xd_, out_[0].data(),
                                                  pd_, in_[I::kScale].data(), in_[I::kShift].data(), out_[1].data(),
                                                  out_[2].data(), p_.epsilon, sd_, in_[I::kMean].data(),
                                                  in_[I::kInv].data(), nullptr, nullptr, 0, nullptr, 0, 1),
                      "anydnnNormalizationBackward");
            break;
        }
    }
    std::vector<Buffer *> outputs() override {
        std::vector<Buffer *> v;
        for (Buffer &b : out_) v.push_back(&b);
        return v;
    }

private:
    static Dims small_dims(const NormBenchProblem &p, bool param) {
        Dims d(p.anydnn_dims().size(), 1);
        if (param) d[1] = p.channels();
        else if (p.layer) d[0] = p.groups();
        else d[1] = p.channels();
        return d;
    }

    TensorDesc xd_, pd_, sd_;
    std::vector<Buffer> out_;
    Buffer save_mean_, save_inv_;
};

class NormDriver final : public ProblemDriver<NormBenchProblem, AnydnnNorm, onednn::norm_case> {
public:
    explicit NormDriver(bool layer) { p_.layer = layer; }

private:
    bool option(std::string_view key, std::string_view value, const std::string &option) override {
        if (key == "dir")
            p_.dir = parse_choice(value, option, kDirs);
        else if (key == "tag" && p_.layer)  // --lnorm's rows have no layout
            return false;
        else
            return parse_dt_or_tag(key, value, option);
        return true;
    }

    void describe(NormBenchProblem &p, std::string_view descriptor) const override {
        p.dims = parse_dims(descriptor, "src");
        const std::string where = "problem '" + std::string(descriptor) + "': ";
        if (p.layer && p.dims.size() != 2) throw ParseError(where + "--lnorm takes rows x length");
        if (!p.layer && (p.dims.size() < 3 || p.dims.size() > 5))
            throw ParseError(where + "--bnorm takes N x C x 1 to 3 spatial dimensions");
    }
};

}  // namespace

Dims NormBenchProblem::anydnn_dims() const {
    if (layer) return {dims[0], dims[1], 1, 1};
    return at_least_4d(dims);
}
int64_t NormBenchProblem::channels() const { return layer ? dims[1] : dims[1]; }
int64_t NormBenchProblem::groups() const { return layer ? dims[0] : dims[1]; }

std::string NormBenchProblem::repro() const {
    static const char *dirs[] = {"FWD_D", "FWD_I", "BWD_DW"};
    std::string s = std::string(layer ? "--lnorm" : "--bnorm") + " --dir=" + dirs[int(dir)] + " --dt=" + dt_name(dt);
    if (!layer) s += std::string(" --tag=") + tag_name(tag);
    return s + " " + dims_string(dims);
}

double NormBenchProblem::bytes() const {
    const double n = double(elements(dims)) * double(dt_size(dt));
    return dir == Dir::bwd_dw ? 3 * n : 2 * n;  // x (+ dy) read once, y (dx) written once
}

// Both libraries round once to the storage type; oneDNN sums in float.
double NormBenchProblem::tolerance() const { return 10 * storage_tolerance(dt); }

Inputs NormBenchProblem::make_inputs(anydnnHandle_t, uint64_t seed) const {
    const int64_t n = elements(dims), c = channels(), g = groups(), inner = n / elements({dims[0], dims[1]});
    Inputs in;
    in.emplace_back(dt, n);
    in[kX].fill_uniform(seed, -1, 3);
    in.emplace_back(dt, n);
    in[kDy].fill_uniform(seed + 1, -1, 1);
    const anydnnDataType_t pdt = param_dt(dt);
    in.emplace_back(pdt, c);
    in[kScale].fill_uniform(seed + 2, 0.5, 1.5);
    in.emplace_back(pdt, c);
    in[kShift].fill_uniform(seed + 3, -1, 1);
    // The batch statistics of x (biased variance, as oneDNN's training pass
    // gives them), so that the backward pass sees consistent inputs.
    std::vector<double> sum(size_t(g), 0.0), sq(size_t(g), 0.0);
    for (int64_t i = 0; i < n; ++i) {
        // The element's group: its channel (bnorm, by the layout) or its row (lnorm).
        const int64_t k = layer ? i / dims[1] : tag == Tag::nhwc ? i % c : (i / inner) % c;
        const double v = in[kX].get(i);
        sum[size_t(k)] += v;
        sq[size_t(k)] += v * v;
    }
    const double m = double(n / g);
    in.emplace_back(pdt, g);
    in.emplace_back(pdt, g);
    in.emplace_back(pdt, g);
    for (int64_t k = 0; k < g; ++k) {
        const double mean = sum[size_t(k)] / m, var = sq[size_t(k)] / m - mean * mean;
        in[kMean].set(k, mean);
        in[kVar].set(k, var);
        in[kInv].set(k, 1 / std::sqrt(var + epsilon));
    }
    return in;
}

std::unique_ptr<Driver> make_bnorm_driver() { return std::make_unique<NormDriver>(false); }
std::unique_ptr<Driver> make_lnorm_driver() { return std::make_unique<NormDriver>(true); }

}  // namespace anydnn_bench
