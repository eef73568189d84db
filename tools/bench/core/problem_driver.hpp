// What the drivers in drivers/ share beyond the Driver, Problem and Case
// interfaces (core/driver.hpp): the option-keeping driver, the binding of a
// problem to its two cases and the base of the anydnn cases, so that a
// driver file holds only what is its own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "anydnn/anydnn.h"
#include "core/driver.hpp"
#include "core/parse.hpp"

namespace anydnn_bench {

// The cases of a problem P whose anydnn Case is one class, AnydnnC
// (constructed from the problem, the handle and the inputs), and whose
// oneDNN case is its adaptor in onednn/adaptor.hpp: P declares neither
// anydnn_case nor onednn_case, its driver makes this class (ProblemDriver's
// AnydnnC and onednn_case arguments). A problem that chooses among cases
// (conv: one per direction) overrides them itself.
template <class P, class AnydnnC, std::unique_ptr<Case> (*onednn)(const P &, const Inputs &)>
class WithCases final : public P {
public:
    std::unique_ptr<Case> anydnn_case(anydnnHandle_t h, const Inputs &in) const override {
        return std::make_unique<AnydnnC>(*this, h, in);
    }
    std::unique_ptr<Case> onednn_case(const Inputs &in) const override { return onednn(*this, in); }
};

// A driver whose options are the fields of its problem P: the options seen
// so far are kept in `p_` (they persist from one descriptor to the next, as
// in benchdnn) and each descriptor gives a copy of `p_` with the
// descriptor's fields filled in. A driver says only which options it takes
// (option) and how its descriptor reads (describe). With AnydnnC and
// onednn_case, the problems it makes are WithCases<P, ...>; without, P is
// complete.
template <class P, class AnydnnC = void, std::unique_ptr<Case> (*onednn_case)(const P &, const Inputs &) = nullptr>
class ProblemDriver : public Driver {
public:
    bool parse_option(std::string_view key, std::string_view value) final {
        return option(key, value, "--" + std::string(key));
    }

    std::unique_ptr<Problem> make_problem(std::string_view descriptor) const final {
        auto p = std::make_unique<Made>(p_);
        describe(*p, descriptor);
        return p;
    }

protected:
    // --key=value into `p_`, `option` being "--key" for messages; false when
    // `key` is not one of the driver's options. Throws ParseError for a bad value.
    virtual bool option(std::string_view key, std::string_view value, const std::string &option) = 0;
    // The descriptor's fields into `p`; throws ParseError naming the bad field.
    virtual void describe(P &p, std::string_view descriptor) const = 0;

    // --dt=f32|f64|f16|bf16 and --tag=nchw|nhwc into p_.dt and p_.tag, which
    // most drivers take; false for any other key.
    bool parse_dt_or_tag(std::string_view key, std::string_view value, const std::string &option) {
        if (key == "dt")
            p_.dt = parse_float_dt(value, option);
        else if (key == "tag")
            p_.tag = parse_tag(value, option);
        else
            return false;
        return true;
    }

    // benchdnn's --mb=N, for the drivers whose descriptors carry a minibatch
    // (conv, pool, lrn, rnn): N replaces the descriptor's minibatch `mb`
    // (describe calls override_mb), 0 keeps it.
    void parse_mb(std::string_view value, const std::string &option) { mb_ = parse_int(value, option, 0); }
    void override_mb(int64_t &mb) const {
        if (mb_ > 0) mb = mb_;
    }

    // The problems made, and so the options kept (make_problem copies them
    // whole): P, or P bound to its cases.
    using Made = std::conditional_t<std::is_void_v<AnydnnC>, P, WithCases<P, AnydnnC, onednn_case>>;
    Made p_;

private:
    int64_t mb_ = 0;
};

// The base of a driver's anydnn Case: the problem, the handle being
// benchmarked and the inputs, all owned by the harness and outliving the case.
template <class P>
class AnydnnCase : public Case {
protected:
    AnydnnCase(const P &p, anydnnHandle_t h, const Inputs &in) : p_(p), h_(h), in_(in) {}

    const P &p_;
    anydnnHandle_t h_;
    const Inputs &in_;
};

}  // namespace anydnn_bench
