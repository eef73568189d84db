#include "ops/softmax_problem.hpp"

#include "ops/tensor_ops_problem.hpp"

namespace anydnn::ops {

namespace {

const char *algo_name(anydnnSoftmaxAlgorithm_t a) {
    return a == ANYDNN_SOFTMAX_FAST ? "fast" : a == ANYDNN_SOFTMAX_LOG ? "log" : "accurate";
}
const char *mode_name(anydnnSoftmaxMode_t m) { return m == ANYDNN_SOFTMAX_MODE_INSTANCE ? "instance" : "channel"; }

Status check_enums(anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode) {
    if (algo != ANYDNN_SOFTMAX_FAST && algo != ANYDNN_SOFTMAX_ACCURATE && algo != ANYDNN_SOFTMAX_LOG)
        return fail(ANYDNN_STATUS_BAD_PARAM, "algo %d is not an anydnnSoftmaxAlgorithm_t", algo);
    if (mode != ANYDNN_SOFTMAX_MODE_INSTANCE && mode != ANYDNN_SOFTMAX_MODE_CHANNEL)
        return fail(ANYDNN_STATUS_BAD_PARAM, "mode %d is not an anydnnSoftmaxMode_t", mode);
    return kSuccess;
}

}  // namespace

std::string SoftmaxForwardProblem::to_string() const {
    return std::string("softmax_fwd algo=") + algo_name(algo) + " mode=" + mode_name(mode) + " x=" + x.to_string() +
           " y=" + y.to_string() + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
}

std::string SoftmaxBackwardProblem::to_string() const {
    return std::string("softmax_bwd algo=") + algo_name(algo) + " mode=" + mode_name(mode) + " y=" + y.to_string() +
           " dy=" + dy.to_string() + " dx=" + dx.to_string() + " alpha=" + std::to_string(alpha) +
           " beta=" + std::to_string(beta);
}

bool softmax_reduces(anydnnSoftmaxMode_t mode, int dim) {
    return mode == ANYDNN_SOFTMAX_MODE_INSTANCE ? dim >= 1 : dim == 1;
}

Status make_softmax_forward_problem(anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode, const TensorLayout &x,
                                    const TensorLayout &y, SoftmaxForwardProblem *p) {
    ANYDNN_TRY(check_enums(algo, mode));
    ANYDNN_TRY(check_same_dims(x, "xDesc", y, "yDesc"));
    ANYDNN_TRY(check_same_type(x, "xDesc", y, "yDesc"));
    ANYDNN_TRY(check_floating(y, "yDesc"));
    *p = SoftmaxForwardProblem{algo, mode, x, y, 1, 0};
    return kSuccess;
}

Status make_softmax_backward_problem(anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode,
                                     const TensorLayout &y, const TensorLayout &dy, const TensorLayout &dx,
                                     SoftmaxBackwardProblem *p) {
    ANYDNN_TRY(check_enums(algo, mode));
    ANYDNN_TRY(check_same_dims(y, "yDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_same_dims(dy, "dyDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_same_type(y, "yDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_same_type(dy, "dyDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_floating(dx, "dxDesc"));
    *p = SoftmaxBackwardProblem{algo, mode, y, dy, dx, 1, 0};
    return kSuccess;
}

}  // namespace anydnn::ops
