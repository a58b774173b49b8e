// Minimal test harness for model unit tests: each test program registers cases, runs
// them inside one SystemC simulation and prints "N passed, N failed" (exit 1 on failure).
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#ifndef SC_INCLUDE_DYNAMIC_PROCESSES
#define SC_INCLUDE_DYNAMIC_PROCESSES
#endif
#include <systemc>

namespace satasim::test {

struct Case {
    std::string name;
    std::function<void()> body; // runs in an SC_THREAD: may wait()
};

inline std::vector<Case> &registry() {
    static std::vector<Case> cases;
    return cases;
}
inline int &failures_in_case() {
    static int n = 0;
    return n;
}

struct Register {
    Register(const char *name, std::function<void()> body) {
        registry().push_back({name, std::move(body)});
    }
};

// Runs every registered case in order from one thread; the caller elaborates first.
inline int run_all() {
    int passed = 0, failed = 0;
    sc_core::sc_spawn(
        [&] {
            for (auto &c : registry()) {
                failures_in_case() = 0;
                c.body();
                if (failures_in_case() == 0) {
                    ++passed;
                } else {
                    ++failed;
                    std::printf("FAIL %s\n", c.name.c_str());
                }
            }
            sc_core::sc_stop();
        },
        "test_runner");
    sc_core::sc_start();
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

} // namespace satasim::test

#define MT_CONCAT2(a, b) a##b
#define MT_CONCAT(a, b) MT_CONCAT2(a, b)
#define MODEL_TEST(name)                                                                   \
    static void name();                                                                    \
    static satasim::test::Register MT_CONCAT(reg_, name)(#name, name);                     \
    static void name()

#define EXPECT_EQ(actual, expected)                                                        \
    do {                                                                                   \
        auto a_ = (actual);                                                                \
        auto e_ = (expected);                                                              \
        if (!(a_ == e_)) {                                                                 \
            std::printf("%s:%d: %s == 0x%llx, expected 0x%llx\n", __FILE__, __LINE__,     \
                        #actual, (unsigned long long)a_, (unsigned long long)e_);          \
            ++satasim::test::failures_in_case();                                           \
        }                                                                                  \
    } while (0)

#define EXPECT_TRUE(cond)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond);               \
            ++satasim::test::failures_in_case();                                           \
        }                                                                                  \
    } while (0)
