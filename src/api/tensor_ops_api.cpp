// C entry points of the tensor ops (anydnn_ops.h): set, scale, add,
// op-tensor and the transforms.
#include <cstring>
#include <new>

#include "anydnn/anydnn_ops.h"
#include "api/api_call.hpp"
#include "core/dtype.hpp"
#include "core/handle.hpp"
#include "cpu/tensor_ops_exec.hpp"
#include "ops/scalars.hpp"
#include "ops/tensor_ops_desc.hpp"
#include "ops/tensor_ops_problem.hpp"

using namespace anydnn;

namespace {

// dest = alpha * pad(src) + beta * dest for the transform descriptor t.
Status transform_padded(const Handle &h, const anydnnTensorTransformStruct &t, const void *alpha,
                        const TensorLayout &src, const void *srcData, const void *beta, const TensorLayout &dst,
                        void *destData) {
    if (static_cast<int>(t.nd) != src.nd || static_cast<int>(t.nd) != dst.nd)
        return fail(ANYDNN_STATUS_BAD_PARAM, "transDesc has %u dimensions but srcDesc %d and destDesc %d", t.nd,
                    src.nd, dst.nd);
    for (int i = 0; i + 2 < src.nd; ++i)
        if (t.fold[i] != 1)
            return fail(ANYDNN_STATUS_NOT_SUPPORTED, "transDesc fold[%d] is %u; only fold 1 is supported", i,
                        t.fold[i]);
    for (int i = 0; i < src.nd; ++i)
        if (src.dims[i] + t.pad_before[i] + t.pad_after[i] != dst.dims[i])
            return fail(ANYDNN_STATUS_BAD_PARAM,
                        "destDesc dimension %d is %lld, expected %lld (srcDesc's) + %d + %d (padding)", i,
                        static_cast<long long>(dst.dims[i]), static_cast<long long>(src.dims[i]),
                        t.pad_before[i], t.pad_after[i]);
    ops::TransformProblem p;
    ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", dst.dt, &p.alpha));
    ANYDNN_TRY(ops::scalar_arg(beta, "beta", dst.dt, &p.beta));
    ANYDNN_TRY(ops::pointer_arg(srcData, "srcData"));
    ANYDNN_TRY(ops::pointer_arg(destData, "destData"));
    const std::size_t esize = dtype_size(dst.dt);
    auto at = [&](const int64_t *start) {
        int64_t off = 0;
        for (int i = 0; i < dst.nd; ++i) off += start[i] * dst.strides[i];
        return static_cast<char *>(destData) + off * static_cast<int64_t>(esize);
    };
    // The interior: dest's strides over src's dimensions.
    int64_t start[kMaxDims];
    for (int i = 0; i < dst.nd; ++i) start[i] = t.pad_before[i];
    p.x = src;
    p.y = dst;
    for (int i = 0; i < dst.nd; ++i) p.y.dims[i] = src.dims[i];
    cpu::execute_transform(h, p, srcData, at(start));
    // The padding: 2 * nd boxes, box (d, side) covering the interior in the
    // dimensions before d, one pad in d, everything after d.
    for (int d = 0; d < dst.nd; ++d) {
        for (int side = 0; side < 2; ++side) {
            const int64_t len = side == 0 ? t.pad_before[d] : t.pad_after[d];
            if (len == 0) continue;
            TensorLayout box = dst;
            for (int i = 0; i < dst.nd; ++i) {
                start[i] = i < d ? t.pad_before[i] : 0;
                box.dims[i] = i < d ? src.dims[i] : dst.dims[i];
            }
            start[d] = side == 0 ? 0 : t.pad_before[d] + src.dims[d];
            box.dims[d] = len;
            if (p.beta == 0) {
                cpu::execute_fill(h, ops::FillProblem{box, {}}, at(start));
            } else {
                ops::TransformProblem scale{box, box, p.beta, 0};
                cpu::execute_transform(h, scale, at(start), at(start));
            }
        }
    }
    return kSuccess;
}

}  // namespace

extern "C" {

anydnnStatus_t anydnnSetTensor(anydnnHandle_t handle, const anydnnTensorDescriptor_t yDesc, void *y,
                               const void *valuePtr) {
    return api_call("anydnnSetTensor", handle, [&] {
        const Handle *h;
        const TensorLayout *yl;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &yl));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        ANYDNN_TRY(ops::pointer_arg(valuePtr, "valuePtr"));
        ops::FillProblem p{*yl, {}};
        std::memcpy(p.value, valuePtr, dtype_size(yl->dt));
        cpu::execute_fill(*h, p, y);
        return kSuccess;
    });
}

anydnnStatus_t anydnnScaleTensor(anydnnHandle_t handle, const anydnnTensorDescriptor_t yDesc, void *y,
                                 const void *alpha) {
    return api_call("anydnnScaleTensor", handle, [&] {
        const Handle *h;
        const TensorLayout *yl;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &yl));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        ops::TransformProblem p{*yl, *yl, 1, 0};
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", yl->dt, &p.alpha));
        cpu::execute_transform(*h, p, y, y);
        return kSuccess;
    });
}

anydnnStatus_t anydnnAddTensor(anydnnHandle_t handle, const void *alpha, const anydnnTensorDescriptor_t aDesc,
                               const void *A, const void *beta, const anydnnTensorDescriptor_t cDesc, void *C) {
    return api_call("anydnnAddTensor", handle, [&] {
        const Handle *h;
        const TensorLayout *al, *cl;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(tensor_arg(aDesc, "aDesc", &al));
        ANYDNN_TRY(tensor_arg(cDesc, "cDesc", &cl));
        ANYDNN_TRY(ops::check_same_type(*al, "aDesc", *cl, "cDesc"));
        ANYDNN_TRY(ops::check_broadcast(*al, "aDesc", *cl, "cDesc"));
        ANYDNN_TRY(ops::pointer_arg(A, "A"));
        ANYDNN_TRY(ops::pointer_arg(C, "C"));
        ops::TransformProblem p{*al, *cl, 1, 0};
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", cl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", cl->dt, &p.beta));
        cpu::execute_transform(*h, p, A, C);
        return kSuccess;
    });
}

anydnnStatus_t anydnnCreateOpTensorDescriptor(anydnnOpTensorDescriptor_t *opTensorDesc) {
    return api_call("anydnnCreateOpTensorDescriptor", nullptr, [&] {
        if (opTensorDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "opTensorDesc is NULL");
        *opTensorDesc = new anydnnOpTensorStruct;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDestroyOpTensorDescriptor(anydnnOpTensorDescriptor_t opTensorDesc) {
    return api_call("anydnnDestroyOpTensorDescriptor", nullptr, [&] {
        delete opTensorDesc;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetOpTensorDescriptor(anydnnOpTensorDescriptor_t opTensorDesc, anydnnOpTensorOp_t opTensorOp,
                                           anydnnDataType_t opTensorCompType, anydnnNanPropagation_t opTensorNanOpt) {
    return api_call("anydnnSetOpTensorDescriptor", nullptr, [&] {
        if (opTensorDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "opTensorDesc is NULL");
        if (static_cast<unsigned>(opTensorOp) > ANYDNN_OP_TENSOR_NOT)
            return fail(ANYDNN_STATUS_BAD_PARAM, "opTensorOp %d is not an anydnnOpTensorOp_t", opTensorOp);
        if (opTensorCompType != ANYDNN_DATA_FLOAT && opTensorCompType != ANYDNN_DATA_DOUBLE)
            return fail(dtype_known(opTensorCompType) ? ANYDNN_STATUS_NOT_SUPPORTED : ANYDNN_STATUS_BAD_PARAM,
                        "opTensorCompType %d: the compute type must be FLOAT or DOUBLE", opTensorCompType);
        if (static_cast<unsigned>(opTensorNanOpt) > ANYDNN_PROPAGATE_NAN)
            return fail(ANYDNN_STATUS_BAD_PARAM, "opTensorNanOpt %d is not an anydnnNanPropagation_t",
                        opTensorNanOpt);
        *opTensorDesc = anydnnOpTensorStruct{true, opTensorOp, opTensorCompType, opTensorNanOpt};
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetOpTensorDescriptor(const anydnnOpTensorDescriptor_t opTensorDesc,
                                           anydnnOpTensorOp_t *opTensorOp, anydnnDataType_t *opTensorCompType,
                                           anydnnNanPropagation_t *opTensorNanOpt) {
    return api_call("anydnnGetOpTensorDescriptor", nullptr, [&] {
        if (opTensorDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "opTensorDesc is NULL");
        if (!opTensorDesc->is_set) return fail(ANYDNN_STATUS_BAD_PARAM, "opTensorDesc was never set");
        if (opTensorOp != nullptr) *opTensorOp = opTensorDesc->op;
        if (opTensorCompType != nullptr) *opTensorCompType = opTensorDesc->comp_type;
        if (opTensorNanOpt != nullptr) *opTensorNanOpt = opTensorDesc->nan_opt;
        return kSuccess;
    });
}

anydnnStatus_t anydnnOpTensor(anydnnHandle_t handle, const anydnnOpTensorDescriptor_t opTensorDesc,
                              const void *alpha1, const anydnnTensorDescriptor_t aDesc, const void *A,
                              const void *alpha2, const anydnnTensorDescriptor_t bDesc, const void *B,
                              const void *beta, const anydnnTensorDescriptor_t cDesc, void *C) {
    return api_call("anydnnOpTensor", handle, [&] {
        const Handle *h;
        const TensorLayout *al, *cl, *bl = nullptr;
        ANYDNN_TRY(handle_arg(handle, &h));
        if (opTensorDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "opTensorDesc is NULL");
        if (!opTensorDesc->is_set) return fail(ANYDNN_STATUS_BAD_PARAM, "opTensorDesc was never set");
        ops::OpTensorProblem p;
        p.op = opTensorDesc->op;
        p.propagate_nan = opTensorDesc->nan_opt == ANYDNN_PROPAGATE_NAN;
        ANYDNN_TRY(tensor_arg(aDesc, "aDesc", &al));
        ANYDNN_TRY(tensor_arg(cDesc, "cDesc", &cl));
        ANYDNN_TRY(ops::check_same_type(*al, "aDesc", *cl, "cDesc"));
        ANYDNN_TRY(ops::check_floating(*cl, "cDesc"));
        ANYDNN_TRY(ops::check_same_dims(*al, "aDesc", *cl, "cDesc"));
        ANYDNN_TRY(ops::pointer_arg(A, "A"));
        ANYDNN_TRY(ops::pointer_arg(C, "C"));
        ANYDNN_TRY(ops::scalar_arg(alpha1, "alpha1", cl->dt, &p.alpha1));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", cl->dt, &p.beta));
        if (!p.unary()) {
            ANYDNN_TRY(tensor_arg(bDesc, "bDesc", &bl));
            ANYDNN_TRY(ops::check_same_type(*bl, "bDesc", *cl, "cDesc"));
            ANYDNN_TRY(ops::check_broadcast(*bl, "bDesc", *cl, "cDesc"));
            ANYDNN_TRY(ops::pointer_arg(B, "B"));
            ANYDNN_TRY(ops::scalar_arg(alpha2, "alpha2", cl->dt, &p.alpha2));
            p.b = *bl;
        }
        p.a = *al;
        p.c = *cl;
        cpu::execute_op_tensor(*h, p, A, p.unary() ? nullptr : B, C);
        return kSuccess;
    });
}

anydnnStatus_t anydnnTransformTensor(anydnnHandle_t handle, const void *alpha, const anydnnTensorDescriptor_t xDesc,
                                     const void *x, const void *beta, const anydnnTensorDescriptor_t yDesc, void *y) {
    return api_call("anydnnTransformTensor", handle, [&] {
        const Handle *h;
        const TensorLayout *xl, *yl;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
        ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &yl));
        ANYDNN_TRY(ops::check_same_dims(*xl, "xDesc", *yl, "yDesc"));
        ANYDNN_TRY(ops::pointer_arg(x, "x"));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        ops::TransformProblem p{*xl, *yl, 1, 0};
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", yl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", yl->dt, &p.beta));
        cpu::execute_transform(*h, p, x, y);
        return kSuccess;
    });
}

anydnnStatus_t anydnnCreateTensorTransformDescriptor(anydnnTensorTransformDescriptor_t *transformDesc) {
    return api_call("anydnnCreateTensorTransformDescriptor", nullptr, [&] {
        if (transformDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "transformDesc is NULL");
        *transformDesc = new anydnnTensorTransformStruct;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDestroyTensorTransformDescriptor(anydnnTensorTransformDescriptor_t transformDesc) {
    return api_call("anydnnDestroyTensorTransformDescriptor", nullptr, [&] {
        delete transformDesc;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetTensorTransformDescriptor(anydnnTensorTransformDescriptor_t transformDesc, uint32_t nbDims,
                                                  anydnnTensorFormat_t destFormat, const int32_t padBeforeA[],
                                                  const int32_t padAfterA[], const uint32_t foldA[],
                                                  anydnnFoldingDirection_t direction) {
    return api_call("anydnnSetTensorTransformDescriptor", nullptr, [&] {
        if (transformDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "transformDesc is NULL");
        if (nbDims < 3 || nbDims > static_cast<uint32_t>(kMaxDims))
            return fail(ANYDNN_STATUS_BAD_PARAM, "nbDims is %u, must be 3 to %d", nbDims, kMaxDims);
        if (destFormat != ANYDNN_TENSOR_NCHW && destFormat != ANYDNN_TENSOR_NHWC &&
            destFormat != ANYDNN_TENSOR_NCHW_VECT_C)
            return fail(ANYDNN_STATUS_BAD_PARAM, "destFormat %d is not an anydnnTensorFormat_t", destFormat);
        if (direction != ANYDNN_TRANSFORM_FOLD && direction != ANYDNN_TRANSFORM_UNFOLD)
            return fail(ANYDNN_STATUS_BAD_PARAM, "direction %d is not an anydnnFoldingDirection_t", direction);
        anydnnTensorTransformStruct t;
        t.nd = nbDims;
        t.dest_format = destFormat;
        t.direction = direction;
        for (uint32_t i = 0; i < nbDims; ++i) {
            t.pad_before[i] = padBeforeA != nullptr ? padBeforeA[i] : 0;
            t.pad_after[i] = padAfterA != nullptr ? padAfterA[i] : 0;
            if (t.pad_before[i] < 0 || t.pad_after[i] < 0)
                return fail(ANYDNN_STATUS_BAD_PARAM, "%s[%u] is %d, must be >= 0",
                            t.pad_before[i] < 0 ? "padBeforeA" : "padAfterA", i,
                            t.pad_before[i] < 0 ? t.pad_before[i] : t.pad_after[i]);
        }
        for (uint32_t i = 0; i + 2 < nbDims; ++i) {
            t.fold[i] = foldA != nullptr ? foldA[i] : 1;
            if (t.fold[i] == 0) return fail(ANYDNN_STATUS_BAD_PARAM, "foldA[%u] is 0, must be >= 1", i);
        }
        t.is_set = true;
        *transformDesc = t;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetTensorTransformDescriptor(anydnnTensorTransformDescriptor_t transformDesc,
                                                  uint32_t nbDimsRequested, anydnnTensorFormat_t *destFormat,
                                                  int32_t padBeforeA[], int32_t padAfterA[], uint32_t foldA[],
                                                  anydnnFoldingDirection_t *direction) {
    return api_call("anydnnGetTensorTransformDescriptor", nullptr, [&] {
        if (transformDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "transformDesc is NULL");
        if (!transformDesc->is_set) return fail(ANYDNN_STATUS_BAD_PARAM, "transformDesc was never set");
        const anydnnTensorTransformStruct &t = *transformDesc;
        if (nbDimsRequested != t.nd)
            return fail(ANYDNN_STATUS_BAD_PARAM, "nbDimsRequested is %u, the descriptor has %u dimensions",
                        nbDimsRequested, t.nd);
        if (destFormat != nullptr) *destFormat = t.dest_format;
        if (direction != nullptr) *direction = t.direction;
        for (uint32_t i = 0; i < t.nd; ++i) {
            if (padBeforeA != nullptr) padBeforeA[i] = t.pad_before[i];
            if (padAfterA != nullptr) padAfterA[i] = t.pad_after[i];
            if (foldA != nullptr && i + 2 < t.nd) foldA[i] = t.fold[i];
        }
        return kSuccess;
    });
}

anydnnStatus_t anydnnTransformTensorEx(anydnnHandle_t handle, const anydnnTensorTransformDescriptor_t transDesc,
                                       const void *alpha, const anydnnTensorDescriptor_t srcDesc,
                                       const void *srcData, const void *beta,
                                       const anydnnTensorDescriptor_t destDesc, void *destData) {
    return api_call("anydnnTransformTensorEx", handle, [&] {
        const Handle *h;
        const TensorLayout *sl, *dl;
        ANYDNN_TRY(handle_arg(handle, &h));
        if (transDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "transDesc is NULL");
        if (!transDesc->is_set) return fail(ANYDNN_STATUS_BAD_PARAM, "transDesc was never set");
        ANYDNN_TRY(tensor_arg(srcDesc, "srcDesc", &sl));
        ANYDNN_TRY(tensor_arg(destDesc, "destDesc", &dl));
        return transform_padded(*h, *transDesc, alpha, *sl, srcData, beta, *dl, destData);
    });
}

anydnnStatus_t anydnnTransformFilter(anydnnHandle_t handle, const anydnnTensorTransformDescriptor_t transDesc,
                                     const void *alpha, const anydnnFilterDescriptor_t srcDesc, const void *srcData,
                                     const void *beta, const anydnnFilterDescriptor_t destDesc, void *destData) {
    return api_call("anydnnTransformFilter", handle, [&] {
        const Handle *h;
        const TensorLayout *sl, *dl;
        ANYDNN_TRY(handle_arg(handle, &h));
        if (transDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "transDesc is NULL");
        if (!transDesc->is_set) return fail(ANYDNN_STATUS_BAD_PARAM, "transDesc was never set");
        ANYDNN_TRY(filter_arg(srcDesc, "srcDesc", &sl));
        ANYDNN_TRY(filter_arg(destDesc, "destDesc", &dl));
        return transform_padded(*h, *transDesc, alpha, *sl, srcData, beta, *dl, destData);
    });
}

}  // extern "C"
