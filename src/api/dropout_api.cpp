// C entry points of dropout (anydnn_ops.h): the descriptor, its states, and
// the forward and backward passes.
#include <cstring>

#include "anydnn/anydnn_ops.h"
#include "api/api_call.hpp"
#include "core/handle.hpp"
#include "cpu/dropout_exec.hpp"
#include "ops/conv_problem.hpp"
#include "ops/dropout_desc.hpp"
#include "ops/dropout_problem.hpp"
#include "ops/in_place.hpp"
#include "ops/scalars.hpp"

using namespace anydnn;

namespace {

Status states_size_arg(std::size_t size) {
    if (size < ops::kDropoutStatesSize)
        return fail(ANYDNN_STATUS_INVALID_VALUE, "stateSizeInBytes is %zu, %zu needed (anydnnDropoutGetStatesSize)",
                    size, ops::kDropoutStatesSize);
    return kSuccess;
}

// The checks common to Set and Restore.
Status set_args(const anydnnDropoutStruct *desc, anydnnHandle_t handle, float p) {
    const Handle *h;
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "dropoutDesc is NULL");
    ANYDNN_TRY(handle_arg(handle, &h));
    return ops::check_dropout_p(p);
}

// The checks common to Forward and Backward: in (x, dy) -> out (y, dx).
Status dropout_call(anydnnHandle_t handle, const anydnnDropoutStruct *desc, const anydnnTensorStruct *in_desc,
                    const char *in_desc_arg, const void *in, const char *in_arg, const anydnnTensorStruct *out_desc,
                    const char *out_desc_arg, void *out, const char *out_arg, void *reserve, std::size_t reserve_bytes,
                    const Handle **h, const anydnnDropoutStruct **d, ops::DropoutProblem *p) {
    const TensorLayout *il, *ol;
    ANYDNN_TRY(handle_arg(handle, h));
    ANYDNN_TRY(ops::dropout_desc_arg(desc, d));
    ANYDNN_TRY(tensor_arg(in_desc, in_desc_arg, &il));
    ANYDNN_TRY(tensor_arg(out_desc, out_desc_arg, &ol));
    ANYDNN_TRY(ops::make_dropout_problem(**d, *il, in_desc_arg, *ol, out_desc_arg, reserve_bytes, p));
    ANYDNN_TRY(ops::pointer_arg(in, in_arg));
    ANYDNN_TRY(ops::pointer_arg(out, out_arg));
    ANYDNN_TRY(ops::pointer_arg(reserve, "reserveSpace"));
    // Elementwise: the output may be the input's buffer with the same layout.
    if (in == out) ANYDNN_TRY(ops::check_in_place(out, *ol, out_arg, in, *il, in_arg));
    else ANYDNN_TRY(ops::check_no_overlap(out, *ol, out_arg, in, *il, in_arg));
    // The mask is bytes: a reserve space inside a tensor would be corrupted.
    TensorLayout mask;
    mask.dt = ANYDNN_DATA_UINT8;
    mask.nd = 1;
    mask.dims[0] = p->elements;
    mask.strides[0] = 1;
    ANYDNN_TRY(ops::check_no_overlap(reserve, mask, "reserveSpace", out, *ol, out_arg));
    ANYDNN_TRY(ops::check_no_overlap(reserve, mask, "reserveSpace", in, *il, in_arg));
    return kSuccess;
}

}  // namespace

extern "C" {

anydnnStatus_t anydnnCreateDropoutDescriptor(anydnnDropoutDescriptor_t *dropoutDesc) {
    return api_call("anydnnCreateDropoutDescriptor", nullptr, [&] {
        if (dropoutDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "dropoutDesc is NULL");
        *dropoutDesc = new anydnnDropoutStruct;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDestroyDropoutDescriptor(anydnnDropoutDescriptor_t dropoutDesc) {
    return api_call("anydnnDestroyDropoutDescriptor", nullptr, [&] {
        delete dropoutDesc;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDropoutGetStatesSize(anydnnHandle_t handle, size_t *sizeInBytes) {
    return api_call("anydnnDropoutGetStatesSize", handle, [&] {
        const Handle *h;
        ANYDNN_TRY(handle_arg(handle, &h));
        if (sizeInBytes == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "sizeInBytes is NULL");
        *sizeInBytes = ops::kDropoutStatesSize;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDropoutGetReserveSpaceSize(anydnnTensorDescriptor_t xdesc, size_t *sizeInBytes) {
    return api_call("anydnnDropoutGetReserveSpaceSize", nullptr, [&] {
        const TensorLayout *xl;
        ANYDNN_TRY(tensor_arg(xdesc, "xdesc", &xl));
        if (sizeInBytes == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "sizeInBytes is NULL");
        *sizeInBytes = ops::dropout_reserve_size(*xl);
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetDropoutDescriptor(anydnnDropoutDescriptor_t dropoutDesc, anydnnHandle_t handle,
                                          float dropout, void *states, size_t stateSizeInBytes,
                                          unsigned long long seed) {
    return api_call("anydnnSetDropoutDescriptor", handle, [&] {
        ANYDNN_TRY(set_args(dropoutDesc, handle, dropout));
        if (states != nullptr) {
            ANYDNN_TRY(states_size_arg(stateSizeInBytes));
            ops::DropoutStates s{};
            s.magic = ops::kDropoutMagic;
            s.seed = seed;
            s.counter = 0;
            s.check = seed ^ ops::kDropoutMagic;
            std::memcpy(states, &s, sizeof(s));
            dropoutDesc->states = states;
        }
        dropoutDesc->p = dropout;
        dropoutDesc->is_set = true;
        return kSuccess;
    });
}

anydnnStatus_t anydnnRestoreDropoutDescriptor(anydnnDropoutDescriptor_t dropoutDesc, anydnnHandle_t handle,
                                              float dropout, void *states, size_t stateSizeInBytes,
                                              unsigned long long seed) {
    return api_call("anydnnRestoreDropoutDescriptor", handle, [&] {
        ANYDNN_TRY(set_args(dropoutDesc, handle, dropout));
        ANYDNN_TRY(ops::pointer_arg(states, "states"));
        ANYDNN_TRY(states_size_arg(stateSizeInBytes));
        ops::DropoutStates s;
        ANYDNN_TRY(ops::read_dropout_states(states, &s));
        (void)seed;  // the buffer's seed is the one that counts (cuDNN: "no effect")
        dropoutDesc->states = states;
        dropoutDesc->p = dropout;
        dropoutDesc->is_set = true;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetDropoutDescriptor(anydnnDropoutDescriptor_t dropoutDesc, anydnnHandle_t handle,
                                          float *dropout, void **states, unsigned long long *seed) {
    return api_call("anydnnGetDropoutDescriptor", handle, [&] {
        const Handle *h;
        if (dropoutDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "dropoutDesc is NULL");
        ANYDNN_TRY(handle_arg(handle, &h));
        unsigned long long s = 0;
        if (dropoutDesc->states != nullptr) {
            ops::DropoutStates st;
            std::memcpy(&st, dropoutDesc->states, sizeof(st));
            s = st.seed;
        }
        if (dropout != nullptr) *dropout = dropoutDesc->p;
        if (states != nullptr) *states = dropoutDesc->states;
        if (seed != nullptr) *seed = s;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDropoutForward(anydnnHandle_t handle, const anydnnDropoutDescriptor_t dropoutDesc,
                                    const anydnnTensorDescriptor_t xdesc, const void *x,
                                    const anydnnTensorDescriptor_t ydesc, void *y, void *reserveSpace,
                                    size_t reserveSpaceSizeInBytes) {
    return api_call("anydnnDropoutForward", handle, [&] {
        const Handle *h;
        const anydnnDropoutStruct *d;
        ops::DropoutProblem p;
        ANYDNN_TRY(dropout_call(handle, dropoutDesc, xdesc, "xdesc", x, "x", ydesc, "ydesc", y, "y", reserveSpace,
                                reserveSpaceSizeInBytes, &h, &d, &p));
        ops::DropoutStates s{};
        const bool random = p.p > 0 && p.p < 1;
        if (d->states == nullptr) {
            if (random)
                return fail(ANYDNN_STATUS_BAD_PARAM,
                            "dropoutDesc has no states (anydnnSetDropoutDescriptor with non-NULL states)");
        } else {
            ANYDNN_TRY(ops::read_dropout_states(d->states, &s));
        }
        cpu::execute_dropout_forward(*h, p, s.seed, s.counter, x, y, reserveSpace);
        if (d->states != nullptr) {
            // The next call draws a new mask, as cuDNN's states advance.
            ++s.counter;
            std::memcpy(d->states, &s, sizeof(s));
        }
        return kSuccess;
    });
}

anydnnStatus_t anydnnDropoutBackward(anydnnHandle_t handle, const anydnnDropoutDescriptor_t dropoutDesc,
                                     const anydnnTensorDescriptor_t dydesc, const void *dy,
                                     const anydnnTensorDescriptor_t dxdesc, void *dx, void *reserveSpace,
                                     size_t reserveSpaceSizeInBytes) {
    return api_call("anydnnDropoutBackward", handle, [&] {
        const Handle *h;
        const anydnnDropoutStruct *d;
        ops::DropoutProblem p;
        ANYDNN_TRY(dropout_call(handle, dropoutDesc, dydesc, "dydesc", dy, "dy", dxdesc, "dxdesc", dx, "dx",
                                reserveSpace, reserveSpaceSizeInBytes, &h, &d, &p));
        cpu::execute_dropout_backward(*h, p, dy, dx, reserveSpace);
        return kSuccess;
    });
}

}  // extern "C"
