// C entry points of the recurrent networks (anydnn_adv.h): the weight space,
// the buffer sizes, and the forward and backward passes.
#include <cstring>

#include "anydnn/anydnn_adv.h"
#include "api/api_call.hpp"
#include "core/dtype.hpp"
#include "core/handle.hpp"
#include "cpu/rnn_exec.hpp"
#include "ops/dropout_problem.hpp"
#include "ops/rnn_problem.hpp"
#include "ops/scalars.hpp"

using namespace anydnn;

namespace {

std::size_t weight_bytes(const ops::RnnConfig &c) {
    return static_cast<std::size_t>(ops::rnn_weight_layout(c).elements) * dtype_size(c.dt);
}

Status size_arg(std::size_t size, std::size_t need, const char *arg, const char *query) {
    if (size < need) return fail(ANYDNN_STATUS_BAD_PARAM, "%s is %zu, %zu needed (%s)", arg, size, need, query);
    return kSuccess;
}

// A weight-space piece as a descriptor {1, rows, cols} and an address, or
// 0 dimensions and NULL when it does not exist.
void describe_piece(const ops::RnnWeightPiece &piece, anydnnDataType_t dt, const void *base,
                    anydnnTensorStruct *desc, void **addr) {
    if (desc != nullptr) {
        desc->is_set = true;
        desc->format = ANYDNN_TENSOR_NCHW;
        desc->layout = TensorLayout{};
        desc->layout.dt = dt;
        if (piece.offset >= 0) {
            const int64_t dims[3] = {1, piece.rows, piece.cols};
            desc->layout.nd = 3;
            for (int i = 0; i < 3; ++i) desc->layout.dims[i] = dims[i];
            packed_strides(3, desc->layout.dims, ANYDNN_TENSOR_NCHW, desc->layout.strides);
        }
    }
    if (addr != nullptr)
        *addr = piece.offset < 0 ? nullptr
                                 : const_cast<char *>(static_cast<const char *>(base)) +
                                       static_cast<std::size_t>(piece.offset) * dtype_size(dt);
}

// What every forward and backward call checks: the handle, the
// descriptors against each other, the weight space and the work space.
struct RnnCall {
    const Handle *h = nullptr;
    const anydnnRNNStruct *rnn = nullptr;
    ops::RnnProblem p;
    cpu::RnnSizes sizes;
};

Status rnn_call(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc, bool training, const int32_t *devSeqLengths,
                anydnnRNNDataDescriptor_t xDesc, anydnnRNNDataDescriptor_t yDesc, anydnnTensorDescriptor_t hDesc,
                anydnnTensorDescriptor_t cDesc, bool has_c_desc, std::size_t weightSpaceSize, const void *weightSpace,
                const char *w_arg, std::size_t workSpaceSize, const void *workSpace, RnnCall *call) {
    const ops::RnnData *x, *y;
    ANYDNN_TRY(handle_arg(handle, &call->h));
    ANYDNN_TRY(ops::rnn_desc_arg(rnnDesc, &call->rnn));
    ANYDNN_TRY(ops::rnn_data_arg(xDesc, "xDesc", &x));
    ANYDNN_TRY(ops::rnn_data_arg(yDesc, "yDesc", &y));
    ANYDNN_TRY(ops::make_rnn_problem(*call->rnn, training, devSeqLengths, *x, "xDesc", *y, "yDesc", hDesc, cDesc,
                                     has_c_desc, &call->p));
    ANYDNN_TRY(ops::pointer_arg(weightSpace, w_arg));
    ANYDNN_TRY(size_arg(weightSpaceSize, weight_bytes(call->rnn->config), "weightSpaceSize",
                        "anydnnGetRNNWeightSpaceSize"));
    call->sizes = cpu::rnn_sizes(*call->h, call->p.shape);
    ANYDNN_TRY(size_arg(workSpaceSize, call->sizes.workspace, "workSpaceSize", "anydnnGetRNNTempSpaceSizes"));
    ANYDNN_TRY(ops::pointer_arg(workSpace, "workSpace"));
    return kSuccess;
}

Status reserve_arg(const RnnCall &call, std::size_t reserveSpaceSize, const void *reserveSpace) {
    ANYDNN_TRY(ops::pointer_arg(reserveSpace, "reserveSpace"));
    return size_arg(reserveSpaceSize, call.sizes.reserve, "reserveSpaceSize", "anydnnGetRNNTempSpaceSizes");
}

}  // namespace

extern "C" {

anydnnStatus_t anydnnGetRNNWeightSpaceSize(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc,
                                           size_t *weightSpaceSize) {
    return api_call("anydnnGetRNNWeightSpaceSize", handle, [&] {
        const Handle *h;
        const anydnnRNNStruct *d;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(ops::rnn_desc_arg(rnnDesc, &d));
        ANYDNN_TRY(ops::pointer_arg(weightSpaceSize, "weightSpaceSize"));
        *weightSpaceSize = weight_bytes(d->config);
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetRNNWeightParams(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc, int32_t pseudoLayer,
                                        size_t weightSpaceSize, const void *weightSpace, int32_t linLayerID,
                                        anydnnTensorDescriptor_t mDesc, void **mAddr, anydnnTensorDescriptor_t bDesc,
                                        void **bAddr) {
    return api_call("anydnnGetRNNWeightParams", handle, [&] {
        const Handle *h;
        const anydnnRNNStruct *d;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(ops::rnn_desc_arg(rnnDesc, &d));
        const ops::RnnConfig &c = d->config;
        if (pseudoLayer < 0 || pseudoLayer >= c.pseudo_layers())
            return fail(ANYDNN_STATUS_BAD_PARAM, "pseudoLayer is %d, outside [0, %d)", pseudoLayer,
                        c.pseudo_layers());
        if (linLayerID < 0 || linLayerID >= c.lin_layers())
            return fail(ANYDNN_STATUS_BAD_PARAM, "linLayerID is %d, outside [0, %d) for this cell mode", linLayerID,
                        c.lin_layers());
        ANYDNN_TRY(ops::pointer_arg(weightSpace, "weightSpace"));
        ANYDNN_TRY(size_arg(weightSpaceSize, weight_bytes(c), "weightSpaceSize", "anydnnGetRNNWeightSpaceSize"));
        ops::RnnWeightPiece m, b;
        ops::rnn_lin_layer(c, ops::rnn_weight_layout(c), pseudoLayer, linLayerID, &m, &b);
        describe_piece(m, c.dt, weightSpace, mDesc, mAddr);
        describe_piece(b, c.dt, weightSpace, bDesc, bAddr);
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetRNNTempSpaceSizes(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc,
                                          anydnnForwardMode_t fwdMode, anydnnRNNDataDescriptor_t xDesc,
                                          size_t *workSpaceSize, size_t *reserveSpaceSize) {
    return api_call("anydnnGetRNNTempSpaceSizes", handle, [&] {
        const Handle *h;
        const anydnnRNNStruct *d;
        const ops::RnnData *x;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(ops::rnn_desc_arg(rnnDesc, &d));
        if (fwdMode != ANYDNN_FWD_MODE_INFERENCE && fwdMode != ANYDNN_FWD_MODE_TRAINING)
            return fail(ANYDNN_STATUS_BAD_PARAM, "fwdMode %d is unknown", fwdMode);
        ANYDNN_TRY(ops::rnn_data_arg(xDesc, "xDesc", &x));
        ANYDNN_TRY(ops::check_rnn_x(d->config, *x, "xDesc"));
        const cpu::RnnSizes s =
            cpu::rnn_sizes(*h, ops::RnnShape{d->config, x->max_seq, x->batch, fwdMode == ANYDNN_FWD_MODE_TRAINING});
        if (workSpaceSize != nullptr) *workSpaceSize = s.workspace;
        if (reserveSpaceSize != nullptr) *reserveSpaceSize = s.reserve;
        return kSuccess;
    });
}

anydnnStatus_t anydnnRNNForward(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc, anydnnForwardMode_t fwdMode,
                                const int32_t devSeqLengths[], anydnnRNNDataDescriptor_t xDesc, const void *x,
                                anydnnRNNDataDescriptor_t yDesc, void *y, anydnnTensorDescriptor_t hDesc,
                                const void *hx, void *hy, anydnnTensorDescriptor_t cDesc, const void *cx, void *cy,
                                size_t weightSpaceSize, const void *weightSpace, size_t workSpaceSize,
                                void *workSpace, size_t reserveSpaceSize, void *reserveSpace) {
    return api_call("anydnnRNNForward", handle, [&] {
        if (fwdMode != ANYDNN_FWD_MODE_INFERENCE && fwdMode != ANYDNN_FWD_MODE_TRAINING)
            return fail(ANYDNN_STATUS_BAD_PARAM, "fwdMode %d is unknown", fwdMode);
        const bool training = fwdMode == ANYDNN_FWD_MODE_TRAINING;
        RnnCall call;
        ANYDNN_TRY(rnn_call(handle, rnnDesc, training, devSeqLengths, xDesc, yDesc, hDesc, cDesc, true,
                            weightSpaceSize, weightSpace, "weightSpace", workSpaceSize, workSpace, &call));
        ANYDNN_TRY(ops::pointer_arg(x, "x"));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        if (training) ANYDNN_TRY(reserve_arg(call, reserveSpaceSize, reserveSpace));
        // The dropout between layers, read now (the descriptor is referenced).
        cpu::RnnDropout drop;
        ops::DropoutStates states{};
        anydnnDropoutStruct *dd = call.rnn->config.dropout;
        if (training && dd != nullptr) {
            const anydnnDropoutStruct *checked;
            ANYDNN_TRY(ops::dropout_desc_arg(dd, &checked));
            drop.p = dd->p;
            if (dd->states == nullptr) {
                if (drop.p > 0 && drop.p < 1)
                    return fail(ANYDNN_STATUS_BAD_PARAM,
                                "rnnDesc's dropoutDesc has no states (anydnnSetDropoutDescriptor with states)");
            } else {
                ANYDNN_TRY(ops::read_dropout_states(dd->states, &states));
                drop.seed = states.seed;
                drop.call = states.counter;
            }
        }
        cpu::RnnForwardBuffers b;
        b.x = x;
        b.y = y;
        b.hx = hx;
        b.hy = hy;
        b.cx = cx;
        b.cy = cy;
        b.w = weightSpace;
        b.workspace = workSpace;
        b.reserve = training ? reserveSpace : nullptr;
        cpu::execute_rnn_forward(*call.h, call.p, drop, b);
        if (training && dd != nullptr && dd->states != nullptr) {
            ++states.counter;  // the next training call draws new masks
            std::memcpy(dd->states, &states, sizeof(states));
        }
        return kSuccess;
    });
}

anydnnStatus_t anydnnRNNBackwardData_v8(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc,
                                        const int32_t devSeqLengths[], anydnnRNNDataDescriptor_t yDesc, const void *y,
                                        const void *dy, anydnnRNNDataDescriptor_t xDesc, void *dx,
                                        anydnnTensorDescriptor_t hDesc, const void *hx, const void *dhy, void *dhx,
                                        anydnnTensorDescriptor_t cDesc, const void *cx, const void *dcy, void *dcx,
                                        size_t weightSpaceSize, const void *weightSpace, size_t workSpaceSize,
                                        void *workSpace, size_t reserveSpaceSize, void *reserveSpace) {
    return api_call("anydnnRNNBackwardData_v8", handle, [&] {
        RnnCall call;
        ANYDNN_TRY(rnn_call(handle, rnnDesc, true, devSeqLengths, xDesc, yDesc, hDesc, cDesc, true,
                            weightSpaceSize, weightSpace, "weightSpace", workSpaceSize, workSpace, &call));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        ANYDNN_TRY(ops::pointer_arg(dy, "dy"));
        ANYDNN_TRY(ops::pointer_arg(dx, "dx"));
        ANYDNN_TRY(reserve_arg(call, reserveSpaceSize, reserveSpace));
        (void)hx;  // the forward call kept what it needs in the reserve space
        (void)cx;
        cpu::RnnBackwardDataBuffers b;
        b.dy = dy;
        b.dx = dx;
        b.dhy = dhy;
        b.dhx = dhx;
        b.dcy = dcy;
        b.dcx = dcx;
        b.w = weightSpace;
        b.workspace = workSpace;
        b.reserve = reserveSpace;
        cpu::execute_rnn_backward_data(*call.h, call.p, b);
        return kSuccess;
    });
}

anydnnStatus_t anydnnRNNBackwardWeights_v8(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc,
                                           anydnnWgradMode_t addGrad, const int32_t devSeqLengths[],
                                           anydnnRNNDataDescriptor_t xDesc, const void *x,
                                           anydnnTensorDescriptor_t hDesc, const void *hx,
                                           anydnnRNNDataDescriptor_t yDesc, const void *y, size_t weightSpaceSize,
                                           void *dweightSpace, size_t workSpaceSize, void *workSpace,
                                           size_t reserveSpaceSize, void *reserveSpace) {
    return api_call("anydnnRNNBackwardWeights_v8", handle, [&] {
        if (addGrad != ANYDNN_WGRAD_MODE_ADD && addGrad != ANYDNN_WGRAD_MODE_SET)
            return fail(ANYDNN_STATUS_BAD_PARAM, "addGrad %d is unknown", addGrad);
        RnnCall call;
        ANYDNN_TRY(rnn_call(handle, rnnDesc, true, devSeqLengths, xDesc, yDesc, hDesc, nullptr, false,
                            weightSpaceSize, dweightSpace, "dweightSpace", workSpaceSize, workSpace, &call));
        ANYDNN_TRY(ops::pointer_arg(x, "x"));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        ANYDNN_TRY(reserve_arg(call, reserveSpaceSize, reserveSpace));
        (void)hx;  // the reserve space holds every h_{t-1}
        cpu::RnnBackwardWeightsBuffers b;
        b.dw = dweightSpace;
        b.add = addGrad == ANYDNN_WGRAD_MODE_ADD;
        b.workspace = workSpace;
        b.reserve = reserveSpace;
        cpu::execute_rnn_backward_weights(*call.h, call.p, b);
        return kSuccess;
    });
}

}  // extern "C"
