#include "ops/reduce_problem.hpp"

#include <limits>

#include "core/dtype.hpp"
#include "ops/tensor_ops_problem.hpp"

namespace anydnn::ops {

int64_t ReduceProblem::reduced_count() const {
    int64_t n = 1;
    for (int i = 0; i < a.nd; ++i)
        if (c.dims[i] == 1) n *= a.dims[i];
    return n;
}

std::size_t ReduceProblem::indices_bytes() const {
    return indices ? static_cast<std::size_t>(c.elements()) * sizeof(uint32_t) : 0;
}

std::string ReduceProblem::to_string() const {
    return "reduce op=" + std::to_string(op) + " nan=" + (propagate_nan ? "propagate" : "skip") +
           " indices=" + (indices ? "1" : "0") + " a=" + a.to_string() + " c=" + c.to_string() +
           " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
}

bool reduce_op_selects(anydnnReduceTensorOp_t op) {
    return op == ANYDNN_REDUCE_TENSOR_MIN || op == ANYDNN_REDUCE_TENSOR_MAX || op == ANYDNN_REDUCE_TENSOR_AMAX;
}

Status reduce_desc_arg(const anydnnReduceTensorStruct *desc, const anydnnReduceTensorStruct **out) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "reduceTensorDesc is NULL");
    if (!desc->is_set) return fail(ANYDNN_STATUS_BAD_PARAM, "reduceTensorDesc was never set");
    *out = desc;
    return kSuccess;
}

Status make_reduce_problem(const anydnnReduceTensorStruct &desc, const TensorLayout &a, const TensorLayout &c,
                           ReduceProblem *p) {
    ANYDNN_TRY(check_same_type(a, "aDesc", c, "cDesc"));
    ANYDNN_TRY(check_floating(c, "cDesc"));
    ANYDNN_TRY(check_broadcast(c, "cDesc", a, "aDesc"));
    ReduceProblem r;
    r.op = desc.op;
    r.propagate_nan = desc.nan_opt == ANYDNN_PROPAGATE_NAN;
    r.indices = desc.indices == ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES && reduce_op_selects(desc.op);
    r.a = a;
    r.c = c;
    if (r.indices) {
        if (desc.indices_type != ANYDNN_32BIT_INDICES)
            return fail(ANYDNN_STATUS_NOT_SUPPORTED,
                        "reduceTensorDesc asks for indices of type %d; only ANYDNN_32BIT_INDICES is supported",
                        desc.indices_type);
        // The kernels track indices in 32-bit lanes next to float values.
        if (r.reduced_count() > std::numeric_limits<int32_t>::max())
            return fail(ANYDNN_STATUS_NOT_SUPPORTED,
                        "indices over %lld reduced elements; at most 2^31 - 1 are supported",
                        static_cast<long long>(r.reduced_count()));
    }
    *p = r;
    return kSuccess;
}

}  // namespace anydnn::ops
