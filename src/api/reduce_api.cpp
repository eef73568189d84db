// C entry points of ReduceTensor (anydnn_ops.h): the descriptor, the size
// queries and the reduction.
#include "anydnn/anydnn_ops.h"
#include "api/api_call.hpp"
#include "core/dtype.hpp"
#include "core/handle.hpp"
#include "cpu/reduce_exec.hpp"
#include "ops/reduce_desc.hpp"
#include "ops/reduce_problem.hpp"
#include "ops/scalars.hpp"

using namespace anydnn;

namespace {

// The checks every reduction function shares: handle, descriptor, A and C.
Status reduce_args(anydnnHandle_t handle, const anydnnReduceTensorStruct *reduceTensorDesc,
                   const anydnnTensorStruct *aDesc, const anydnnTensorStruct *cDesc, const Handle **h,
                   ops::ReduceProblem *p) {
    const anydnnReduceTensorStruct *rd;
    const TensorLayout *al, *cl;
    ANYDNN_TRY(handle_arg(handle, h));
    ANYDNN_TRY(ops::reduce_desc_arg(reduceTensorDesc, &rd));
    ANYDNN_TRY(tensor_arg(aDesc, "aDesc", &al));
    ANYDNN_TRY(tensor_arg(cDesc, "cDesc", &cl));
    return ops::make_reduce_problem(*rd, *al, *cl, p);
}

}  // namespace

extern "C" {

anydnnStatus_t anydnnCreateReduceTensorDescriptor(anydnnReduceTensorDescriptor_t *reduceTensorDesc) {
    return api_call("anydnnCreateReduceTensorDescriptor", nullptr, [&] {
        if (reduceTensorDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "reduceTensorDesc is NULL");
        *reduceTensorDesc = new anydnnReduceTensorStruct;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDestroyReduceTensorDescriptor(anydnnReduceTensorDescriptor_t reduceTensorDesc) {
    return api_call("anydnnDestroyReduceTensorDescriptor", nullptr, [&] {
        delete reduceTensorDesc;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetReduceTensorDescriptor(anydnnReduceTensorDescriptor_t reduceTensorDesc,
                                               anydnnReduceTensorOp_t reduceTensorOp,
                                               anydnnDataType_t reduceTensorCompType,
                                               anydnnNanPropagation_t reduceTensorNanOpt,
                                               anydnnReduceTensorIndices_t reduceTensorIndices,
                                               anydnnIndicesType_t reduceTensorIndicesType) {
    return api_call("anydnnSetReduceTensorDescriptor", nullptr, [&] {
        if (reduceTensorDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "reduceTensorDesc is NULL");
        if (static_cast<unsigned>(reduceTensorOp) > ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
            return fail(ANYDNN_STATUS_BAD_PARAM, "reduceTensorOp %d is not an anydnnReduceTensorOp_t",
                        reduceTensorOp);
        if (reduceTensorCompType != ANYDNN_DATA_FLOAT && reduceTensorCompType != ANYDNN_DATA_DOUBLE)
            return fail(dtype_known(reduceTensorCompType) ? ANYDNN_STATUS_NOT_SUPPORTED : ANYDNN_STATUS_BAD_PARAM,
                        "reduceTensorCompType %d: the compute type must be FLOAT or DOUBLE", reduceTensorCompType);
        if (static_cast<unsigned>(reduceTensorNanOpt) > ANYDNN_PROPAGATE_NAN)
            return fail(ANYDNN_STATUS_BAD_PARAM, "reduceTensorNanOpt %d is not an anydnnNanPropagation_t",
                        reduceTensorNanOpt);
        if (static_cast<unsigned>(reduceTensorIndices) > ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES)
            return fail(ANYDNN_STATUS_BAD_PARAM, "reduceTensorIndices %d is not an anydnnReduceTensorIndices_t",
                        reduceTensorIndices);
        // Index types other than 32-bit are valid here and refused (NOT_SUPPORTED)
        // where indices would be written.
        if (static_cast<unsigned>(reduceTensorIndicesType) > ANYDNN_8BIT_INDICES)
            return fail(ANYDNN_STATUS_BAD_PARAM, "reduceTensorIndicesType %d is not an anydnnIndicesType_t",
                        reduceTensorIndicesType);
        *reduceTensorDesc = anydnnReduceTensorStruct{true, reduceTensorOp, reduceTensorCompType, reduceTensorNanOpt,
                                                     reduceTensorIndices, reduceTensorIndicesType};
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetReduceTensorDescriptor(const anydnnReduceTensorDescriptor_t reduceTensorDesc,
                                               anydnnReduceTensorOp_t *reduceTensorOp,
                                               anydnnDataType_t *reduceTensorCompType,
                                               anydnnNanPropagation_t *reduceTensorNanOpt,
                                               anydnnReduceTensorIndices_t *reduceTensorIndices,
                                               anydnnIndicesType_t *reduceTensorIndicesType) {
    return api_call("anydnnGetReduceTensorDescriptor", nullptr, [&] {
        const anydnnReduceTensorStruct *d;
        ANYDNN_TRY(ops::reduce_desc_arg(reduceTensorDesc, &d));
        if (reduceTensorOp != nullptr) *reduceTensorOp = d->op;
        if (reduceTensorCompType != nullptr) *reduceTensorCompType = d->comp_type;
        if (reduceTensorNanOpt != nullptr) *reduceTensorNanOpt = d->nan_opt;
        if (reduceTensorIndices != nullptr) *reduceTensorIndices = d->indices;
        if (reduceTensorIndicesType != nullptr) *reduceTensorIndicesType = d->indices_type;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetReductionIndicesSize(anydnnHandle_t handle,
                                             const anydnnReduceTensorDescriptor_t reduceTensorDesc,
                                             const anydnnTensorDescriptor_t aDesc,
                                             const anydnnTensorDescriptor_t cDesc, size_t *sizeInBytes) {
    return api_call("anydnnGetReductionIndicesSize", handle, [&] {
        const Handle *h;
        ops::ReduceProblem p;
        ANYDNN_TRY(reduce_args(handle, reduceTensorDesc, aDesc, cDesc, &h, &p));
        ANYDNN_TRY(ops::pointer_arg(sizeInBytes, "sizeInBytes"));
        *sizeInBytes = p.indices_bytes();
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetReductionWorkspaceSize(anydnnHandle_t handle,
                                               const anydnnReduceTensorDescriptor_t reduceTensorDesc,
                                               const anydnnTensorDescriptor_t aDesc,
                                               const anydnnTensorDescriptor_t cDesc, size_t *sizeInBytes) {
    return api_call("anydnnGetReductionWorkspaceSize", handle, [&] {
        const Handle *h;
        ops::ReduceProblem p;
        ANYDNN_TRY(reduce_args(handle, reduceTensorDesc, aDesc, cDesc, &h, &p));
        ANYDNN_TRY(ops::pointer_arg(sizeInBytes, "sizeInBytes"));
        *sizeInBytes = 0;  // the CPU kernels keep their partial results on the stack
        return kSuccess;
    });
}

anydnnStatus_t anydnnReduceTensor(anydnnHandle_t handle, const anydnnReduceTensorDescriptor_t reduceTensorDesc,
                                  void *indices, size_t indicesSizeInBytes, void *workspace,
                                  size_t workspaceSizeInBytes, const void *alpha, const anydnnTensorDescriptor_t aDesc,
                                  const void *A, const void *beta, const anydnnTensorDescriptor_t cDesc, void *C) {
    return api_call("anydnnReduceTensor", handle, [&] {
        const Handle *h;
        ops::ReduceProblem p;
        ANYDNN_TRY(reduce_args(handle, reduceTensorDesc, aDesc, cDesc, &h, &p));
        ANYDNN_TRY(ops::pointer_arg(A, "A"));
        ANYDNN_TRY(ops::pointer_arg(C, "C"));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", p.c.dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", p.c.dt, &p.beta));
        if (p.indices) {
            if (indices == nullptr)
                return fail(ANYDNN_STATUS_BAD_PARAM, "indices is NULL but reduceTensorDesc asks for indices");
            if (indicesSizeInBytes < p.indices_bytes())
                return fail(ANYDNN_STATUS_BAD_PARAM,
                            "indicesSizeInBytes is %zu, needs %zu (one uint32 per element of C)", indicesSizeInBytes,
                            p.indices_bytes());
        }
        // workspace is not read: GetReductionWorkspaceSize is 0 for every problem.
        cpu::execute_reduce(*h, p, A, C, static_cast<uint32_t *>(indices));
        return kSuccess;
    });
}

}  // extern "C"
