#include "ops/tensor_ops_problem.hpp"

#include "core/dtype.hpp"

namespace anydnn::ops {

std::string TransformProblem::to_string() const {
    return "transform x=" + x.to_string() + " y=" + y.to_string() + " alpha=" + std::to_string(alpha) +
           " beta=" + std::to_string(beta);
}

std::string OpTensorProblem::to_string() const {
    return "op_tensor op=" + std::to_string(op) + " a=" + a.to_string() + (unary() ? "" : " b=" + b.to_string()) +
           " c=" + c.to_string() + " alpha1=" + std::to_string(alpha1) + " alpha2=" + std::to_string(alpha2) +
           " beta=" + std::to_string(beta);
}

Status check_broadcast(const TensorLayout &in, const char *in_arg, const TensorLayout &out, const char *out_arg) {
    if (in.nd != out.nd)
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s has %d dimensions but %s has %d", in_arg, in.nd, out_arg, out.nd);
    for (int i = 0; i < out.nd; ++i)
        if (in.dims[i] != out.dims[i] && in.dims[i] != 1)
            return fail(ANYDNN_STATUS_BAD_PARAM, "%s dimension %d is %lld, expected 1 or %lld (%s's)", in_arg, i,
                        static_cast<long long>(in.dims[i]), static_cast<long long>(out.dims[i]), out_arg);
    return kSuccess;
}

Status check_same_dims(const TensorLayout &a, const char *a_arg, const TensorLayout &b, const char *b_arg) {
    if (a.nd != b.nd)
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s has %d dimensions but %s has %d", a_arg, a.nd, b_arg, b.nd);
    for (int i = 0; i < a.nd; ++i)
        if (a.dims[i] != b.dims[i])
            return fail(ANYDNN_STATUS_BAD_PARAM, "%s dimension %d is %lld but %s's is %lld", a_arg, i,
                        static_cast<long long>(a.dims[i]), b_arg, static_cast<long long>(b.dims[i]));
    return kSuccess;
}

Status check_same_type(const TensorLayout &a, const char *a_arg, const TensorLayout &b, const char *b_arg) {
    if (a.dt != b.dt)
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s is %s but %s is %s", a_arg, dtype_name(a.dt), b_arg,
                    dtype_name(b.dt));
    return kSuccess;
}

Status check_floating(const TensorLayout &t, const char *arg) {
    if (!dtype_is_floating(t.dt))
        return fail(ANYDNN_STATUS_NOT_SUPPORTED, "%s is %s; this op takes f32, f64, f16 or bf16", arg,
                    dtype_name(t.dt));
    return kSuccess;
}

}  // namespace anydnn::ops
