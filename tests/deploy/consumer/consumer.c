/* An external program built against an installed anydnn (find_package or
 * pkg-config), as a user would write it: C99, the public headers only.
 *
 *   consumer                 runs one op and checks it: exit 0 when right
 *   consumer --header N      creates a handle as a program compiled against
 *                            headers of version N would: exit 0 when the
 *                            library answers VERSION_MISMATCH, naming itself
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <anydnn/anydnn.h>

static int mismatch_is_reported(size_t header_version) {
    anydnnHandle_t handle = NULL;
    char message[1024];
    anydnnStatus_t status = anydnnCreateForVersion(&handle, header_version);
    anydnnGetLastErrorString(message, sizeof message);
    printf("anydnnCreate with headers %zu: %s: %s\n", header_version, anydnnGetErrorString(status), message);
    if (status == ANYDNN_STATUS_SUCCESS) anydnnDestroy(handle);
    return status == ANYDNN_STATUS_VERSION_MISMATCH && strstr(message, "libanydnn") != NULL;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--header") == 0)
        return mismatch_is_reported((size_t)strtoul(argv[2], NULL, 10)) ? 0 : 1;

    anydnnHandle_t handle;
    anydnnTensorDescriptor_t desc;
    float a[6] = {1, 2, 3, 4, 5, 6}, c[6] = {10, 20, 30, 40, 50, 60};
    const float alpha = 2.0f, beta = 1.0f;
    int i;
    if (anydnnCreate(&handle) != ANYDNN_STATUS_SUCCESS || anydnnCreateTensorDescriptor(&desc) != ANYDNN_STATUS_SUCCESS ||
        anydnnSetTensor4dDescriptor(desc, ANYDNN_TENSOR_NCHW, ANYDNN_DATA_FLOAT, 1, 2, 1, 3) != ANYDNN_STATUS_SUCCESS ||
        anydnnAddTensor(handle, &alpha, desc, a, &beta, desc, c) != ANYDNN_STATUS_SUCCESS) {
        char message[512];
        anydnnGetLastErrorString(message, sizeof message);
        fprintf(stderr, "consumer: %s\n", message);
        return 1;
    }
    for (i = 0; i < 6; ++i) {
        if (c[i] != 10.0f * (i + 1) + 2.0f * (i + 1)) {
            fprintf(stderr, "consumer: c[%d] = %g\n", i, c[i]);
            return 1;
        }
    }
    anydnnDestroyTensorDescriptor(desc);
    anydnnDestroy(handle);
    printf("consumer: anydnn %zu (headers %d) works\n", anydnnGetVersion(), ANYDNN_VERSION);
    return anydnnGetVersion() == ANYDNN_VERSION ? 0 : 1;
}
