// What a driver (one op family: --eltwise, --binary, ...) provides to the
// shared harness. Adding a driver is one file in drivers/ (its options,
// descriptor syntax and anydnn calls, on core/problem_driver.hpp's pieces),
// one in onednn/ (the same problem in oneDNN) and one line in
// drivers/registry.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "anydnn/anydnn.h"
#include "core/buffer.hpp"

namespace anydnn_bench {

// The inputs of one problem, made once and read by every library; the order
// is the problem's own (e.g. x, y, dy).
using Inputs = std::vector<Buffer>;

// One library's prepared execution of a problem: descriptors or primitives
// made, outputs allocated; run() is what the timer measures.
class Case {
public:
    virtual ~Case() = default;
    virtual void run() = 0;
    // Restores outputs that are also inputs (in-place ops) to their initial
    // contents; called before a correctness run.
    virtual void reset() {}
    // The buffers compared in corr mode, in the same order for every library.
    virtual std::vector<Buffer *> outputs() = 0;
};

class Problem {
public:
    virtual ~Problem() = default;
    virtual const char *driver() const = 0;
    // The problem in the tool's own syntax, e.g.
    // "--eltwise --dir=fwd --alg=relu --dt=f32 --tag=nchw 16x64x56x56":
    // pasting it after anydnn-bench reruns exactly this problem.
    virtual std::string repro() const = 0;
    // The fewest bytes the op must read and write (each input read once,
    // each output written once); GB/s and % of bandwidth are computed from it.
    virtual double bytes() const = 0;
    // The arithmetic the op does (a multiply-add counts 2), for GFLOP/s;
    // 0 for the memory-bound ops, which report GB/s only.
    virtual double flops() const { return 0; }
    // How many times the problem occurs in its network (a layer named
    // ..._xN), for the weighted network total; 0 where the name says nothing.
    virtual int occurrences() const { return 0; }
    // The largest relative L2 error corr mode accepts against the reference.
    virtual double tolerance() const = 0;
    // `h` is the handle being benchmarked, for inputs that are outputs of
    // another op (e.g. y = f(x) for an activation's backward pass).
    virtual Inputs make_inputs(anydnnHandle_t h, uint64_t seed) const = 0;
    // Throw Unsupported when the library does not run this problem.
    virtual std::unique_ptr<Case> anydnn_case(anydnnHandle_t h, const Inputs &in) const = 0;
    virtual std::unique_ptr<Case> onednn_case(const Inputs &in) const = 0;
    // oneDNN from the user's plain layout: onednn_case's primitive with the
    // reorders into and out of oneDNN's own layouts inside run(). nullptr
    // where onednn_case already runs on the user's layout (every op but conv).
    virtual std::unique_ptr<Case> onednn_reorder_case(const Inputs &) const { return nullptr; }
};

// A driver holds the options seen since its flag on the command line;
// options persist from one descriptor to the next, as in benchdnn.
class Driver {
public:
    virtual ~Driver() = default;
    // Consumes --key=value; false when `key` is not one of this driver's
    // options. Throws ParseError for a bad value.
    virtual bool parse_option(std::string_view key, std::string_view value) = 0;
    // A problem from a descriptor ("16x64x56x56") and the current options;
    // throws ParseError naming the bad field.
    virtual std::unique_ptr<Problem> make_problem(std::string_view descriptor) const = 0;
};

struct DriverInfo {
    const char *name;   // the flag without "--": "eltwise"
    const char *usage;  // its options and descriptor syntax, for --help
    std::unique_ptr<Driver> (*make)();
};

// Every driver of the tool (drivers/registry.cpp).
std::span<const DriverInfo> drivers();

}  // namespace anydnn_bench
