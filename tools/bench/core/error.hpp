// The three ways a benchmark step fails; each carries a one-line message.
#pragma once

#include <stdexcept>

namespace anydnn_bench {

// A bad command line or descriptor: the message names the option or field.
struct ParseError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A valid problem that a library (or this build of the tool) does not run:
// the problem is reported as skipped for that library, not as a failure.
struct Unsupported : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A library call that failed on a problem it should have run.
struct LibraryError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace anydnn_bench
