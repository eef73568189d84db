#include "drivers/softmax.hpp"

#include "core/anydnn_util.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/problem_driver.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench {

const char kSoftmaxUsage[] =
    "    --alg=accurate|fast|log (benchdnn's softmax|logsoftmax too) --axis=A (default 1)\n"
    "    --dt=f32|f64|f16|bf16 --tag=nchw|nhwc; problem: 64x1000 or 16x64x56x56\n";

namespace {

const std::initializer_list<std::pair<const char *, anydnnSoftmaxAlgorithm_t>> kAlgs = {
    {"accurate", ANYDNN_SOFTMAX_ACCURATE}, {"fast", ANYDNN_SOFTMAX_FAST},   {"log", ANYDNN_SOFTMAX_LOG},
    {"softmax", ANYDNN_SOFTMAX_ACCURATE},  {"logsoftmax", ANYDNN_SOFTMAX_LOG}};

class AnydnnSoftmax final : public AnydnnCase<SoftmaxProblem> {
public:
    AnydnnSoftmax(const SoftmaxProblem &p, anydnnHandle_t h, const Inputs &in)
        : AnydnnCase(p, h, in), desc_(p.dt, p.anydnn_dims(), p.tag), out_(p.dt, elements(p.dims)) {}

    void run() override {
        const Scalar one(1), zero(0);
        check(anydnnSoftmaxForward(h_, p_.alg, ANYDNN_SOFTMAX_MODE_CHANNEL, one.get(p_.dt), desc_,
                                   in_[SoftmaxProblem::kX].data(), zero.get(p_.dt), desc_, out_.data()),
              "anydnnSoftmaxForward");
    }
    std::vector<Buffer *> outputs() override { return {&out_}; }

private:
    TensorDesc desc_;
    Buffer out_;
};

class SoftmaxDriver final : public ProblemDriver<SoftmaxProblem, AnydnnSoftmax, onednn::softmax_case> {
    bool option(std::string_view key, std::string_view value, const std::string &option) override {
        if (key == "alg")
            p_.alg = parse_choice(value, option, kAlgs);
        else if (key == "axis")
            p_.axis = static_cast<int>(parse_int(value, option, 0));
        else if (key == "dir")  // forward only, for now
            parse_choice<bool>(value, option, {{"fwd", true}, {"FWD_D", true}, {"FWD_I", true}});
        else
            return parse_dt_or_tag(key, value, option);
        return true;
    }

    void describe(SoftmaxProblem &p, std::string_view descriptor) const override {
        p.dims = parse_dims(descriptor, "src");
        const std::string where = "problem '" + std::string(descriptor) + "': ";
        if (p.axis >= static_cast<int>(p.dims.size()))
            throw ParseError(where + "--axis=" + std::to_string(p.axis) + " is out of range for " +
                             std::to_string(p.dims.size()) + " dimensions");
        if (p.tag == Tag::nhwc && p.axis != 1 && p.dims.size() > 2)
            throw ParseError(where + "--axis=" + std::to_string(p.axis) +
                             " with --tag=nhwc (only the channel axis 1 is supported)");
    }
};

}  // namespace

Dims SoftmaxProblem::anydnn_dims() const {
    if (tag == Tag::nhwc) return at_least_4d(dims);
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; ++i) outer *= dims[size_t(i)];
    for (size_t i = size_t(axis) + 1; i < dims.size(); ++i) inner *= dims[i];
    return {outer, dims[size_t(axis)], inner, 1};
}

std::string SoftmaxProblem::repro() const {
    return std::string("--softmax --alg=") + choice_name(alg, kAlgs) + " --axis=" + std::to_string(axis) +
           " --dt=" + dt_name(dt) + " --tag=" + tag_name(tag) + " " + dims_string(dims);
}

double SoftmaxProblem::bytes() const { return double(2 * elements(dims) * int64_t(dt_size(dt))); }

double SoftmaxProblem::tolerance() const { return storage_tolerance(dt); }

Inputs SoftmaxProblem::make_inputs(anydnnHandle_t, uint64_t seed) const {
    Inputs in;
    in.emplace_back(dt, elements(dims));
    in[kX].fill_uniform(seed, -5, 5);
    return in;
}

std::unique_ptr<Driver> make_softmax_driver() { return std::make_unique<SoftmaxDriver>(); }

}  // namespace anydnn_bench
