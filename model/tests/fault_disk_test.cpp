// The drive's fault hooks and violation records at FIS level, through a real SataLink and a
// scripted host endpoint: what the observer sees of queued commands, NCQ tag misuse (and
// queued commands refused in the NCQ error state), power-on reset disarming every fault (and
// undoing a replaced identity), as a fuzzer reusing the model relies on.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <optional>
#include <string>
#include <vector>

#include "model/fault/fault_plan.h"
#include "model/tests/identify_data.h"
#include "model/tests/model_test.h"
#include "model/tests/scripted_host.h"

using namespace satasim;
using namespace satasim::device;
using link::Gen;
using link::SataLink;
using sata::Fis;
using sata::FisType;
using sata::Taskfile;
using sc_core::sc_time;
using sc_core::SC_MS;
using sc_core::SC_US;

namespace {

DiskConfig disk_cfg() {
    DiskConfig c;
    c.sectors = 1u << 20;
    c.timing.ssd = true;
    c.serial = "ORIGINAL01";
    return c;
}

// The host waits up to 20 ms for each answer.
struct Bench : test::ScriptedHostBench {
    Bench() : ScriptedHostBench("link0", "disk0", disk_cfg(), sc_time(20, SC_MS)) {}
};
Bench *B;

// COMRESET, then the signature.
bool comreset() {
    auto f = B->comreset();
    return f && f->type() == FisType::RegD2H && sata::parse_taskfile(*f).lba == 1;
}

Fis fpdma(bool write, uint64_t lba, unsigned tag, uint16_t sectors) {
    Taskfile t;
    t.command = write ? 0x61 : 0x60;
    t.lba = lba;
    t.count = uint16_t(tag << 3);
    t.feature = uint8_t(sectors);
    t.feature_hi = uint8_t(sectors >> 8);
    t.device = 0x40;
    return sata::make_reg_h2d(t, true);
}

// Drain FISes until one of type `type` arrives (or nothing for a while).
std::optional<Fis> until(FisType type) {
    for (;;) {
        auto f = B->host.next();
        if (!f || f->type() == type)
            return f;
    }
}

// IDENTIFY DEVICE by PIO: the serial number (words 10-19), or "" on an error.
std::string identify_serial() {
    Taskfile t;
    t.command = 0xEC;
    t.device = 0x40;
    B->host.send(sata::make_reg_h2d(t, true));
    auto setup = B->host.next();
    if (!setup || setup->type() != FisType::PioSetup)
        return "";
    auto data = B->host.next();
    if (!data || data->type() != FisType::Data)
        return "";
    return test::ata_string(data->payload(), 10, 10);
}

} // namespace

MODEL_TEST(observer_sees_queued_commands) {
    EXPECT_TRUE(comreset());
    std::vector<CommandInfo> seen;
    B->disk.set_command_observer([&](const CommandInfo &ci) { seen.push_back(ci); });
    B->host.send(fpdma(false, 0x12345, 5, 16));
    auto sdb = until(FisType::SetDeviceBits);
    EXPECT_TRUE(sdb.has_value());
    EXPECT_EQ(sdb->dword(1), 1u << 5);
    EXPECT_EQ(sdb->at(2) & sata::kAtaErr, 0);
    EXPECT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].opcode, 0x60);
    EXPECT_TRUE(seen[0].ncq && !seen[0].write);
    EXPECT_EQ(seen[0].lba, 0x12345u);
    EXPECT_EQ(seen[0].sectors, 16u);
    EXPECT_EQ(seen[0].tag, 5);
    EXPECT_EQ(seen[0].seq, 1u);
    B->disk.set_command_observer(nullptr);
}

MODEL_TEST(ncq_tag_misuse_is_a_violation) {
    // The same tag twice: the drive aborts everything (ERR/ABRT), log 10h would say so.
    B->host.send(fpdma(false, 0, 7, 256));
    B->host.send(fpdma(false, 1000, 7, 8));
    auto d2h = B->host.next();
    while (d2h && !(d2h->type() == FisType::RegD2H && (d2h->at(2) & sata::kAtaErr)))
        d2h = B->host.next();
    EXPECT_TRUE(d2h.has_value());
    EXPECT_EQ(B->tr.count("disk.violation", "ncq_tag_in_use"), 1u);
    // A queued command before READ LOG EXT 10h is refused; it may have crossed the error
    // on the wire, so it is no violation.
    B->host.send(fpdma(false, 0, 1, 8));
    auto rej = until(FisType::RegD2H);
    EXPECT_TRUE(rej && (rej->at(2) & sata::kAtaErr));
    EXPECT_TRUE(comreset());
    EXPECT_EQ(B->tr.count("disk.violation"), 1u);
}

MODEL_TEST(power_on_reset_disarms_faults_and_identity) {
    fault::PlugParams pp;
    pp.serial = "REPLACED02";
    B->disk.replace_identity(pp);
    EXPECT_TRUE(comreset());
    EXPECT_TRUE(identify_serial() == "REPLACED02");
    B->disk.inject_identify_failures(5, "idf");
    fault::MediaParams mp;
    mp.error = fault::MediaParams::Error::Abrt;
    B->disk.inject_media_error(mp, "abrt");
    B->disk.inject_hang("hang");
    B->disk.power_on_reset();
    EXPECT_TRUE(comreset());
    EXPECT_TRUE(identify_serial() == "ORIGINAL01");
    EXPECT_TRUE(B->disk.config().serial == "ORIGINAL01");
}

MODEL_TEST(hang_ignores_srst) {
    B->disk.inject_hang("hang1");
    Taskfile t;
    t.control = sata::kAtaSrst;
    B->host.send(sata::make_reg_h2d(t, false));
    sc_core::wait(100, SC_US);
    t.control = 0;
    B->host.send(sata::make_reg_h2d(t, false));
    EXPECT_TRUE(!B->host.next(sc_time(20, SC_MS)).has_value()); // no signature
    EXPECT_TRUE(comreset());
    EXPECT_TRUE(identify_serial() == "ORIGINAL01");
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    return satasim::test::run_all();
}
