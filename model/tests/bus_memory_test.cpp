// HostMemory: region allocation, alignment, zero fill, bus accesses that fail on unmapped
// bytes (and whether they overran an allocation), direct mapping, free and reset.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>

#include "model/bus/host_memory.h"
#include "model/tests/model_test.h"

using satasim::bus::HostMemory;

MODEL_TEST(alloc_is_aligned_zeroed_and_mapped) {
    HostMemory m;
    uint8_t *cpu = nullptr;
    uint64_t a = m.alloc(100, 1024, &cpu);
    EXPECT_TRUE(a != 0);
    EXPECT_TRUE(cpu != nullptr);
    EXPECT_EQ(a % 1024, 0u);
    EXPECT_TRUE(a >= 0x10000000ull);
    bool zero = true;
    for (int i = 0; i < 100; ++i)
        zero = zero && cpu[i] == 0;
    EXPECT_TRUE(zero);
    EXPECT_EQ(m.bytes_allocated(), 100u);
    EXPECT_TRUE(m.map(a, 100) == cpu);
    EXPECT_TRUE(m.map(a + 10, 90) == cpu + 10);
    EXPECT_TRUE(m.map(a + 10, 91) == nullptr);
}

MODEL_TEST(bus_access_sees_cpu_writes_and_back) {
    HostMemory m;
    uint8_t *cpu = nullptr;
    uint64_t a = m.alloc(64, 64, &cpu);
    cpu[4] = 0x11;
    cpu[5] = 0x22;
    cpu[6] = 0x33;
    cpu[7] = 0x44;
    uint32_t v = 0;
    EXPECT_TRUE(m.read32(a + 4, &v));
    EXPECT_EQ(v, 0x44332211u);
    EXPECT_TRUE(m.write32(a + 8, 0xA5A5F00Du));
    EXPECT_EQ(cpu[8], 0x0D);
    EXPECT_EQ(cpu[11], 0xA5);
    const uint8_t pat[3] = {1, 2, 3};
    EXPECT_TRUE(m.write(a + 61, pat, 3));
    EXPECT_EQ(cpu[63], 3);
}

MODEL_TEST(unmapped_access_fails_and_touches_nothing) {
    HostMemory m;
    uint8_t *cpu = nullptr;
    uint64_t a = m.alloc(64, 64, &cpu);
    uint8_t buf[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    EXPECT_TRUE(!m.read(a + 60, buf, 8)); // runs past the end
    EXPECT_EQ(buf[0], 9);
    EXPECT_TRUE(!m.write(a + 60, buf, 8));
    EXPECT_EQ(cpu[60], 0);
    EXPECT_TRUE(!m.read(a - 4, buf, 4));  // before the start
    EXPECT_TRUE(!m.read(0, buf, 4));
    EXPECT_TRUE(!m.read(~0ull - 2, buf, 8)); // wraps around
    uint32_t v;
    EXPECT_TRUE(!m.read32(0x8, &v));
    EXPECT_TRUE(m.read(a, buf, 0)); // empty access always succeeds
}

MODEL_TEST(regions_do_not_touch_each_other) {
    HostMemory m;
    uint8_t *c1, *c2;
    uint64_t a1 = m.alloc(4096, 4096, &c1);
    uint64_t a2 = m.alloc(4096, 4096, &c2);
    EXPECT_TRUE(a2 > a1 + 4096); // an unmapped guard gap separates regions
    uint8_t buf[16];
    EXPECT_TRUE(!m.read(a1 + 4088, buf, 16));
    EXPECT_TRUE(!m.read(a1 + 4096, buf, 1));
    EXPECT_TRUE(m.read(a2, buf, 16));
}

MODEL_TEST(free_unmaps_and_addresses_are_deterministic) {
    HostMemory m1, m2;
    uint8_t *c;
    uint64_t a = m1.alloc(512, 512, &c);
    uint64_t b = m1.alloc(100, 8, &c);
    EXPECT_EQ(m2.alloc(512, 512, &c), a);
    EXPECT_EQ(m2.alloc(100, 8, &c), b);
    m1.free(a);
    uint8_t x;
    EXPECT_TRUE(!m1.read(a, &x, 1));
    EXPECT_TRUE(m1.read(b, &x, 1));
    EXPECT_EQ(m1.bytes_allocated(), 100u);
    m1.reset();
    EXPECT_EQ(m1.bytes_allocated(), 0u);
    EXPECT_TRUE(!m1.read(b, &x, 1));
    EXPECT_EQ(m1.alloc(512, 512, &c), a); // power-on state: same first address again
}

MODEL_TEST(overrun_into_guard_gap_is_told_from_a_wild_address) {
    HostMemory m;
    uint64_t a = m.alloc(512, 64, nullptr);
    EXPECT_TRUE(!m.runs_past_allocation(a, 512));      // exactly the buffer
    EXPECT_TRUE(m.runs_past_allocation(a, 1024));      // runs past its end
    EXPECT_TRUE(m.runs_past_allocation(a + 600, 4));   // inside the guard gap
    EXPECT_TRUE(!m.runs_past_allocation(a + 0x3000, 4)); // beyond the gap: wild
    EXPECT_TRUE(!m.runs_past_allocation(0x1000, 4));   // below every region
}

MODEL_TEST(bad_requests) {
    HostMemory m(0x1000, 0x20000);
    uint8_t *c = reinterpret_cast<uint8_t *>(1);
    EXPECT_EQ(m.alloc(16, 3, &c), 0u); // alignment not a power of two
    EXPECT_TRUE(c == nullptr);
    EXPECT_EQ(m.alloc(0x100000, 16, &c), 0u); // beyond the limit
    uint64_t a = m.alloc(0, 16, &c);          // zero size still gets a distinct region
    EXPECT_TRUE(a != 0 && c != nullptr);
    m.free(0x12345); // freeing an unknown address is harmless
}

int sc_main(int, char **) { return satasim::test::run_all(); }
