// C entry points of softmax (anydnn_ops.h).
#include "anydnn/anydnn_ops.h"
#include "api/api_call.hpp"
#include "core/handle.hpp"
#include "cpu/softmax_exec.hpp"
#include "ops/in_place.hpp"
#include "ops/scalars.hpp"
#include "ops/softmax_problem.hpp"

using namespace anydnn;

extern "C" {

anydnnStatus_t anydnnSoftmaxForward(anydnnHandle_t handle, anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode,
                                    const void *alpha, const anydnnTensorDescriptor_t xDesc, const void *x,
                                    const void *beta, const anydnnTensorDescriptor_t yDesc, void *y) {
    return api_call("anydnnSoftmaxForward", handle, [&] {
        const Handle *h;
        const TensorLayout *xl, *yl;
        ops::SoftmaxForwardProblem p;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
        ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &yl));
        ANYDNN_TRY(ops::make_softmax_forward_problem(algo, mode, *xl, *yl, &p));
        ANYDNN_TRY(ops::pointer_arg(x, "x"));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        ANYDNN_TRY(ops::check_in_place(y, *yl, "y", x, *xl, "x"));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", yl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", yl->dt, &p.beta));
        cpu::execute_softmax_forward(*h, p, x, y);
        return kSuccess;
    });
}

anydnnStatus_t anydnnSoftmaxBackward(anydnnHandle_t handle, anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode,
                                     const void *alpha, const anydnnTensorDescriptor_t yDesc, const void *y,
                                     const anydnnTensorDescriptor_t dyDesc, const void *dy, const void *beta,
                                     const anydnnTensorDescriptor_t dxDesc, void *dx) {
    return api_call("anydnnSoftmaxBackward", handle, [&] {
        const Handle *h;
        const TensorLayout *yl, *dyl, *dxl;
        ops::SoftmaxBackwardProblem p;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &yl));
        ANYDNN_TRY(tensor_arg(dyDesc, "dyDesc", &dyl));
        ANYDNN_TRY(tensor_arg(dxDesc, "dxDesc", &dxl));
        ANYDNN_TRY(ops::make_softmax_backward_problem(algo, mode, *yl, *dyl, *dxl, &p));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        ANYDNN_TRY(ops::pointer_arg(dy, "dy"));
        ANYDNN_TRY(ops::pointer_arg(dx, "dx"));
        ANYDNN_TRY(ops::check_in_place(dx, *dxl, "dx", dy, *dyl, "dy"));
        ANYDNN_TRY(ops::check_in_place(dx, *dxl, "dx", y, *yl, "y"));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", dxl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", dxl->dt, &p.beta));
        cpu::execute_softmax_backward(*h, p, y, dy, dx);
        return kSuccess;
    });
}

}  // extern "C"
