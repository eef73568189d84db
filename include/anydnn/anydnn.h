/* anydnn.h: the whole anydnn C API (cuDNN 8's legacy API, renamed).
 *
 *   anydnn_version.h  ANYDNN_VERSION
 *   anydnn_core.h     handle, status, logging, tensor and filter descriptors
 *   anydnn_ops.h      tensor ops, reductions, activations, softmax
 *   anydnn_cnn.h      convolution
 *   anydnn_adv.h      recurrent networks (RNN, LSTM, GRU)
 */
#ifndef ANYDNN_H_
#define ANYDNN_H_

#include "anydnn_version.h"
#include "anydnn_core.h"
#include "anydnn_ops.h"
#include "anydnn_cnn.h"
#include "anydnn_adv.h"

#endif /* ANYDNN_H_ */
