#include "fuzz/findings.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/scenario_yaml.h"
#include "scenario/scenario_parser.h"

namespace fs = std::filesystem;

namespace satasim::harness::fuzz {

std::string bucket_dir_name(const Finding &f) {
    uint32_t h = 2166136261u;
    for (char c : f.where)
        h = (h ^ uint8_t(c)) * 16777619u;
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08x", h);
    return f.oracle + "-" + buf;
}

std::string finding_yaml(const InputResult &r, uint64_t max_steps) {
    const Finding &f = r.findings.front();
    std::string header = "satasim fuzz finding\noracle: " + f.oracle + "\nbucket: " + f.bucket() + "\ndetail: " +
                         escape_controls(f.detail) + "\nreplay: satasim run " + r.name +
                         ".yaml (fails while the finding is there, passes once it is fixed)";
    // The header comments go on top of the scenario text the runner ran.
    std::string text;
    std::istringstream in(header);
    for (std::string line; std::getline(in, line);)
        text += "# " + line + "\n";
    text += r.yaml;
    text += "oracles: {fuzz: true";
    if (max_steps)
        text += ", max_steps: " + std::to_string(max_steps);
    return text + "}\n";
}

void write_finding(const std::string &dir, const std::vector<uint8_t> &bytes, const InputResult &r,
                   uint64_t max_steps) {
    const fs::path d = fs::path(dir) / bucket_dir_name(r.findings.front());
    std::error_code ec;
    fs::create_directories(d, ec);
    std::ofstream(d / (r.name + ".bin"), std::ios::binary)
        .write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
    std::ofstream(d / (r.name + ".yaml")) << finding_yaml(r, max_steps);
}

namespace {

using namespace layout;

std::vector<uint8_t> padded(std::vector<uint8_t> b) {
    if (b.size() < kDisks)
        b.resize(kDisks, 0);
    return b;
}

// The slots used, as the decoder reads them.
unsigned used(const std::vector<uint8_t> &b, size_t at, unsigned slots) { return b[at] % (slots + 1); }

// Slot i removed: the later slots move up, the count drops by one.
std::vector<uint8_t> drop_slot(std::vector<uint8_t> b, size_t count_at, size_t base, size_t size, unsigned slots,
                               unsigned i) {
    const unsigned n = used(b, count_at, slots);
    for (unsigned j = i; j + 1 < n; ++j)
        std::copy(b.begin() + long(base + (j + 1) * size), b.begin() + long(base + (j + 2) * size),
                  b.begin() + long(base + j * size));
    b[count_at] = uint8_t(n - 1);
    return b;
}

} // namespace

std::vector<uint8_t> reduce_input(InProcessRunner &runner, const std::vector<uint8_t> &input,
                                  const std::string &bucket, unsigned *runs) {
    std::vector<uint8_t> best = padded(input);
    auto keeps = [&](const std::vector<uint8_t> &cand) {
        ++*runs;
        InputResult r = runner.run_bytes(cand.data(), cand.size());
        for (const Finding &f : r.findings)
            if (f.bucket() == bucket)
                return true;
        return false;
    };
    for (bool progress = true; progress;) {
        progress = false;
        // Drop faults, then workloads, one slot at a time.
        for (unsigned i = 0; i < used(best, kFaultCount, 6); ++i) {
            auto c = drop_slot(best, kFaultCount, kFaults, kFaultSize, 6, i);
            if (keeps(c)) {
                best = c, progress = true, --i;
            }
        }
        for (unsigned i = 0; i < used(best, kWorkloadCount, 4); ++i) {
            auto c = drop_slot(best, kWorkloadCount, kWorkloads, kWorkloadSize, 4, i);
            if (keeps(c)) {
                best = c, progress = true, --i;
            }
        }
        // Shorter workloads: fewer requests (count field), then a smaller depth.
        for (unsigned i = 0; i < used(best, kWorkloadCount, 4); ++i) {
            const size_t w = kWorkloads + i * kWorkloadSize;
            for (unsigned field : {5u, 4u}) {
                unsigned cur = field == 5 ? (best[w + 5] | best[w + 6] << 8) % 32 : best[w + 4] % 32;
                while (cur > 0) {
                    auto c = best;
                    unsigned next = cur / 2;
                    c[w + field] = uint8_t(next);
                    if (field == 5)
                        c[w + 6] = 0;
                    if (!keeps(c))
                        break;
                    best = c, progress = true, cur = next;
                }
            }
        }
        // Fewer disks: an empty host port, then fan-out places cleared one by one.
        for (unsigned p = 0; p < 4; ++p) {
            const size_t s = kPorts + p * kPortSize;
            if (best[s] % 3 == 0)
                continue;
            auto c = best;
            c[s] = 0;
            if (keeps(c)) {
                best = c, progress = true;
                continue;
            }
            if (best[s] % 3 != 2)
                continue;
            for (unsigned bit = 0; bit < 15; ++bit) {
                unsigned mask = best[s + 3] | best[s + 4] << 8;
                if (!(mask >> bit & 1))
                    continue;
                auto c2 = best;
                mask &= ~(1u << bit);
                c2[s + 3] = uint8_t(mask), c2[s + 4] = uint8_t(mask >> 8);
                if (keeps(c2))
                    best = c2, progress = true;
            }
        }
    }
    // Trailing zero bytes read as zero anyway.
    while (!best.empty() && best.back() == 0)
        best.pop_back();
    return best;
}

} // namespace satasim::harness::fuzz
