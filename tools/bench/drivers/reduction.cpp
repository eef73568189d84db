#include "drivers/reduction.hpp"

#include <algorithm>
#include <cmath>

#include "core/anydnn_util.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/problem_driver.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench {

const char kReductionUsage[] =
    "    --alg=sum|mul|min|max|mean|amax|norm1|norm2 --dt=f32|f64|f16|bf16 --tag=nchw|nhwc;\n"
    "    problem: 16x64x56x56:1x64x1x1 (src:dst, dst dimensions 1 where reduced)\n";

namespace {

const std::initializer_list<std::pair<const char *, anydnnReduceTensorOp_t>> kAlgs = {
    {"sum", ANYDNN_REDUCE_TENSOR_ADD},    {"mul", ANYDNN_REDUCE_TENSOR_MUL},     {"min", ANYDNN_REDUCE_TENSOR_MIN},
    {"max", ANYDNN_REDUCE_TENSOR_MAX},    {"mean", ANYDNN_REDUCE_TENSOR_AVG},    {"amax", ANYDNN_REDUCE_TENSOR_AMAX},
    {"norm1", ANYDNN_REDUCE_TENSOR_NORM1}, {"norm2", ANYDNN_REDUCE_TENSOR_NORM2}};

class ReduceDesc : public Owned<anydnnReduceTensorDescriptor_t, anydnnCreateReduceTensorDescriptor,
                                anydnnDestroyReduceTensorDescriptor> {
public:
    ReduceDesc(anydnnReduceTensorOp_t op, anydnnDataType_t dt) : Owned("anydnnCreateReduceTensorDescriptor") {
        check(anydnnSetReduceTensorDescriptor(*this, op, compute_type(dt), ANYDNN_NOT_PROPAGATE_NAN,
                                              ANYDNN_REDUCE_TENSOR_NO_INDICES, ANYDNN_32BIT_INDICES),
              "anydnnSetReduceTensorDescriptor");
    }
};

class AnydnnReduction final : public AnydnnCase<ReductionProblem> {
public:
    AnydnnReduction(const ReductionProblem &p, anydnnHandle_t h, const Inputs &in)
        : AnydnnCase(p, h, in), rd_(p.alg, p.dt), ad_(p.dt, at_least_4d(p.src), p.tag),
          cd_(p.dt, at_least_4d(p.dst), p.tag), out_(p.dt, elements(p.dst)) {
        size_t ws = 0;
        check(anydnnGetReductionWorkspaceSize(h, rd_, ad_, cd_, &ws), "anydnnGetReductionWorkspaceSize");
        workspace_ = Buffer(ANYDNN_DATA_UINT8, static_cast<int64_t>(ws));
    }

    void run() override {
        const Scalar one(1), zero(0);
        check(anydnnReduceTensor(h_, rd_, nullptr, 0, workspace_.data(), workspace_.bytes(), one.get(p_.dt), ad_,
                                 in_[ReductionProblem::kSrc].data(), zero.get(p_.dt), cd_, out_.data()),
              "anydnnReduceTensor");
    }
    std::vector<Buffer *> outputs() override { return {&out_}; }

private:
    ReduceDesc rd_;
    TensorDesc ad_, cd_;
    Buffer out_, workspace_;
};

class ReductionDriver final : public ProblemDriver<ReductionProblem, AnydnnReduction, onednn::reduction_case> {
    bool option(std::string_view key, std::string_view value, const std::string &option) override {
        if (key != "alg") return parse_dt_or_tag(key, value, option);
        p_.alg = parse_choice(value, option, kAlgs);
        return true;
    }

    void describe(ReductionProblem &p, std::string_view descriptor) const override {
        const std::vector<Dims> d = parse_dims_list(descriptor, {"src", "dst"});
        const std::string where = "problem '" + std::string(descriptor) + "': ";
        if (d.size() != 2) throw ParseError(where + "no dst (expected src:dst, e.g. 16x64x56x56:1x64x1x1)");
        p.src = d[0];
        p.dst = d[1];
        check_broadcast(p.src, "src", p.dst, "dst", where);
    }
};

}  // namespace

std::string ReductionProblem::repro() const {
    return std::string("--reduction --alg=") + choice_name(alg, kAlgs) + " --dt=" + dt_name(dt) + " --tag=" +
           tag_name(tag) + " " + dims_string(src) + ":" + dims_string(dst);
}

double ReductionProblem::bytes() const { return double((elements(src) + elements(dst)) * int64_t(dt_size(dt))); }

double ReductionProblem::tolerance() const {
    // Libraries sum in different orders: rounding noise grows like the
    // square root of the reduction length.
    const double length = double(elements(src)) / double(elements(dst));
    return storage_tolerance(dt) * std::max(1.0, std::sqrt(length) / 16);
}

Inputs ReductionProblem::make_inputs(anydnnHandle_t, uint64_t seed) const {
    Inputs in;
    in.emplace_back(dt, elements(src));
    Buffer &x = in[kSrc];
    switch (alg) {
    case ANYDNN_REDUCE_TENSOR_MUL: x.fill_uniform(seed, 1, 1, true); break;  // +-1: long products stay finite
    case ANYDNN_REDUCE_TENSOR_ADD:
    case ANYDNN_REDUCE_TENSOR_AVG: x.fill_uniform(seed, 0.25, 1); break;  // one sign: no cancellation
    default: x.fill_uniform(seed, 0.25, 1, true); break;
    }
    return in;
}

std::unique_ptr<Driver> make_reduction_driver() { return std::make_unique<ReductionDriver>(); }

}  // namespace anydnn_bench
