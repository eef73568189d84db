// The anydnn C API as function pointers resolved with dlsym from the library
// the doctor loaded: the doctor never links libanydnn, so that it still runs,
// and says why, when the library is missing, truncated or of another version.
#pragma once

#include <dlfcn.h>

#include <string>
#include <vector>

#include "anydnn/anydnn.h"

namespace doctor {

#define DOCTOR_API_FUNCTIONS(X)                                                                                   \
    X(anydnnGetVersion) X(anydnnGetBuildInfo) X(anydnnGetErrorString) X(anydnnGetLastErrorString)                \
    X(anydnnCreateForVersion) X(anydnnDestroy) X(anydnnGetNumThreads)                                            \
    X(anydnnCreateTensorDescriptor) X(anydnnDestroyTensorDescriptor) X(anydnnSetTensor4dDescriptor)              \
    X(anydnnCreateFilterDescriptor) X(anydnnDestroyFilterDescriptor) X(anydnnSetFilter4dDescriptor)              \
    X(anydnnSetTensor) X(anydnnScaleTensor) X(anydnnAddTensor) X(anydnnTransformTensor)                          \
    X(anydnnCreateOpTensorDescriptor) X(anydnnDestroyOpTensorDescriptor) X(anydnnSetOpTensorDescriptor)          \
    X(anydnnOpTensor)                                                                                             \
    X(anydnnCreateReduceTensorDescriptor) X(anydnnDestroyReduceTensorDescriptor)                                 \
    X(anydnnSetReduceTensorDescriptor) X(anydnnGetReductionWorkspaceSize) X(anydnnReduceTensor)                  \
    X(anydnnCreateActivationDescriptor) X(anydnnDestroyActivationDescriptor) X(anydnnSetActivationDescriptor)    \
    X(anydnnActivationForward) X(anydnnActivationBackward) X(anydnnSoftmaxForward) X(anydnnSoftmaxBackward)      \
    X(anydnnCreatePoolingDescriptor) X(anydnnDestroyPoolingDescriptor) X(anydnnSetPooling2dDescriptor)           \
    X(anydnnPoolingForward) X(anydnnPoolingBackward)                                                             \
    X(anydnnCreateLRNDescriptor) X(anydnnDestroyLRNDescriptor) X(anydnnSetLRNDescriptor)                         \
    X(anydnnLRNCrossChannelForward) X(anydnnLRNCrossChannelBackward)                                             \
    X(anydnnDivisiveNormalizationForward) X(anydnnDivisiveNormalizationBackward)                                 \
    X(anydnnCreateDropoutDescriptor) X(anydnnDestroyDropoutDescriptor) X(anydnnDropoutGetStatesSize)             \
    X(anydnnDropoutGetReserveSpaceSize) X(anydnnSetDropoutDescriptor) X(anydnnDropoutForward)                    \
    X(anydnnDropoutBackward)                                                                                      \
    X(anydnnBatchNormalizationForwardTraining) X(anydnnBatchNormalizationBackward)                               \
    X(anydnnBatchNormalizationForwardInference) X(anydnnDeriveNormTensorDescriptor)                              \
    X(anydnnNormalizationForwardInference)                                                                        \
    X(anydnnCreateConvolutionDescriptor) X(anydnnDestroyConvolutionDescriptor)                                   \
    X(anydnnSetConvolution2dDescriptor) X(anydnnSetConvolutionGroupCount)                                        \
    X(anydnnGetConvolutionForwardWorkspaceSize)                              \
    X(anydnnConvolutionForward) X(anydnnConvolutionBiasActivationForward)                                        \
    X(anydnnGetConvolutionBackwardDataWorkspaceSize) X(anydnnConvolutionBackwardData)                            \
    X(anydnnGetConvolutionBackwardFilterWorkspaceSize) X(anydnnConvolutionBackwardFilter)                        \
    X(anydnnConvolutionBackwardBias) X(anydnnSetTensorNdDescriptor)                                              \
    X(anydnnCreateRNNDescriptor) X(anydnnDestroyRNNDescriptor) X(anydnnSetRNNDescriptor_v8)                      \
    X(anydnnCreateRNNDataDescriptor) X(anydnnDestroyRNNDataDescriptor) X(anydnnSetRNNDataDescriptor)             \
    X(anydnnGetRNNWeightSpaceSize) X(anydnnGetRNNWeightParams) X(anydnnGetRNNTempSpaceSizes) X(anydnnRNNForward)

struct Api {
#define DOCTOR_API_MEMBER(name) decltype(&::name) name = nullptr;
    DOCTOR_API_FUNCTIONS(DOCTOR_API_MEMBER)
#undef DOCTOR_API_MEMBER

    // Resolves every function; returns the names the library lacks.
    std::vector<std::string> resolve(void *library) {
        std::vector<std::string> missing;
#define DOCTOR_API_RESOLVE(name)                                            \
    name = reinterpret_cast<decltype(&::name)>(dlsym(library, #name));      \
    if (name == nullptr) missing.push_back(#name);
        DOCTOR_API_FUNCTIONS(DOCTOR_API_RESOLVE)
#undef DOCTOR_API_RESOLVE
        return missing;
    }
};

}  // namespace doctor
