/* A libanydnn.so.1 that is anydnn 2.0.0 (its symbols under ANYDNN_2.0): the
 * "other version" the deployment tests put on the search path. */
#include <stddef.h>

__attribute__((used)) const char anydnn_version_stamp[] = "anydnn-library-version: 2.0.0\n";

__attribute__((visibility("default"))) size_t anydnnGetVersion(void) { return 20000; }
