// The few operating-system calls the core needs, behind one small file.
#pragma once

#include <cstddef>

namespace anydnn {

unsigned long long process_id();
unsigned long long thread_id();
// 64-byte aligned allocation; nullptr on failure.
void *aligned_alloc64(std::size_t size);
void aligned_free(void *p);
// The absolute path of the file this library was loaded from (the shared
// library, or the executable it is linked into statically); "" if unknown.
const char *library_path();

}  // namespace anydnn
