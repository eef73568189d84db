// The in-place rule of the elementwise and row-wise ops (activation,
// softmax): an output may be one of the inputs' buffers only when the two
// descriptors are identical, so that each element is read before the same
// element is written.
#pragma once

#include "core/status.hpp"
#include "core/tensor_desc.hpp"

namespace anydnn::ops {

// BAD_PARAM when out is in's buffer but the descriptors differ.
Status check_in_place(const void *out, const TensorLayout &out_l, const char *out_arg, const void *in,
                      const TensorLayout &in_l, const char *in_arg);

}  // namespace anydnn::ops
