#include "drivers/binary.hpp"

#include "core/anydnn_util.hpp"
#include "core/parse.hpp"
#include "core/problem_driver.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench {

const char kBinaryUsage[] =
    "    --alg=add|mul|min|max|addtensor --dt=f32|f64|f16|bf16 --tag=nchw|nhwc;\n"
    "    problem: 16x64x56x56:1x64x1x1 (src0:src1, src1 broadcast; one tensor: both alike)\n";

namespace {

const std::initializer_list<std::pair<const char *, BinaryAlg>> kAlgs = {
    {"add", BinaryAlg::add}, {"mul", BinaryAlg::mul}, {"min", BinaryAlg::min},
    {"max", BinaryAlg::max}, {"addtensor", BinaryAlg::addtensor}};

anydnnOpTensorOp_t op_of(BinaryAlg alg) {
    switch (alg) {
    case BinaryAlg::mul: return ANYDNN_OP_TENSOR_MUL;
    case BinaryAlg::min: return ANYDNN_OP_TENSOR_MIN;
    case BinaryAlg::max: return ANYDNN_OP_TENSOR_MAX;
    default: return ANYDNN_OP_TENSOR_ADD;
    }
}

class OpTensorDesc
    : public Owned<anydnnOpTensorDescriptor_t, anydnnCreateOpTensorDescriptor, anydnnDestroyOpTensorDescriptor> {
public:
    OpTensorDesc(anydnnOpTensorOp_t op, anydnnDataType_t dt) : Owned("anydnnCreateOpTensorDescriptor") {
        check(anydnnSetOpTensorDescriptor(*this, op, compute_type(dt), ANYDNN_NOT_PROPAGATE_NAN),
              "anydnnSetOpTensorDescriptor");
    }
};

class AnydnnBinary final : public AnydnnCase<BinaryProblem> {
public:
    AnydnnBinary(const BinaryProblem &p, anydnnHandle_t h, const Inputs &in)
        : AnydnnCase(p, h, in), op_(op_of(p.alg), p.dt), d0_(p.dt, at_least_4d(p.src0), p.tag),
          d1_(p.dt, at_least_4d(p.src1), p.tag), out_(p.dt, elements(p.src0)) {
        reset();  // addtensor reads C: start from real values, not from whatever the allocation held
    }

    void reset() override {
        if (p_.alg == BinaryAlg::addtensor) out_.copy_from(in_[BinaryProblem::kSrc0]);
    }
    void run() override {
        const Scalar one(1), zero(0);
        const void *a = in_[BinaryProblem::kSrc0].data(), *b = in_[BinaryProblem::kSrc1].data();
        if (p_.alg == BinaryAlg::addtensor)
            check(anydnnAddTensor(h_, one.get(p_.dt), d1_, b, one.get(p_.dt), d0_, out_.data()), "anydnnAddTensor");
        else
            check(anydnnOpTensor(h_, op_, one.get(p_.dt), d0_, a, one.get(p_.dt), d1_, b, zero.get(p_.dt), d0_,
                                 out_.data()),
                  "anydnnOpTensor");
    }
    std::vector<Buffer *> outputs() override { return {&out_}; }

private:
    OpTensorDesc op_;
    TensorDesc d0_, d1_;
    Buffer out_;
};

class BinaryDriver final : public ProblemDriver<BinaryProblem, AnydnnBinary, onednn::binary_case> {
    bool option(std::string_view key, std::string_view value, const std::string &option) override {
        if (key != "alg") return parse_dt_or_tag(key, value, option);
        p_.alg = parse_choice(value, option, kAlgs);
        return true;
    }

    void describe(BinaryProblem &p, std::string_view descriptor) const override {
        const std::vector<Dims> d = parse_dims_list(descriptor, {"src0", "src1"});
        p.src0 = d[0];
        p.src1 = d.size() > 1 ? d[1] : d[0];
        check_broadcast(p.src0, "src0", p.src1, "src1", "problem '" + std::string(descriptor) + "': ");
    }
};

}  // namespace

std::string BinaryProblem::repro() const {
    return std::string("--binary --alg=") + choice_name(alg, kAlgs) + " --dt=" + dt_name(dt) + " --tag=" +
           tag_name(tag) + " " + dims_string(src0) + ":" + dims_string(src1);
}

double BinaryProblem::bytes() const {
    // Read src0 and src1, write dst (for addtensor: read C and A, write C).
    return double((2 * elements(src0) + elements(src1)) * int64_t(dt_size(dt)));
}

double BinaryProblem::tolerance() const { return storage_tolerance(dt); }

Inputs BinaryProblem::make_inputs(anydnnHandle_t, uint64_t seed) const {
    Inputs in;
    in.emplace_back(dt, elements(src0));
    in.emplace_back(dt, elements(src1));
    in[kSrc0].fill_uniform(seed, -1, 1);
    in[kSrc1].fill_uniform(seed + 1, -1, 1);
    return in;
}

std::unique_ptr<Driver> make_binary_driver() { return std::make_unique<BinaryDriver>(); }

}  // namespace anydnn_bench
