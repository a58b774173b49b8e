// VCD (IEEE 1364 value change dump) writer for the models' waveform probes (model/wave):
// the `waveform` scenario key and `satasim run --vcd`. Viewable in GTKWave.
//
// Signals are selected by group (irq, phy, prims, fis, regs) and host port when the models
// declare them; all declarations come before start(). Changes are buffered and written in
// time order (a dword link reports a frame burst ahead of simulated time; nothing reports
// behind it, so every change before the current time is final). Changes at one time keep
// their order (a pulse of zero width shows as two changes); unchanged values are not written.
// Timescale: the SystemC time resolution (1 ps). Output is written to a temporary file in
// the target's folder and renamed into place by finish(): a run that dies leaves no file
// under the final name. Deterministic: the same scenario and seed give the same bytes.
//
// FST: a target named *.fst is written as VCD under the temporary name and converted by
// GTKWave's vcd2fst (Debian package gtkwave) before the rename; a VCD is kept as it is.
// Beside the waveform (either format) finish() writes a GTKWave save file, <stem>.gtkw,
// with every signal in a group per signal group and port (irq; per link: phy, prims, fis;
// per port: regs), the primitive codes and FIS types decoded by translate filter files
// written beside it (<stem>.prims.txt, <stem>.fis.txt, the tables below): `gtkwave
// <stem>.gtkw` opens the waveform that way.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "model/wave/wave_probe.h"
#include "scenario/wave_groups.h"

namespace satasim::harness {

static_assert(kWaveGroupCount == wave::kGroups, "scenario/wave_groups.h lists every wave::Group");

struct VcdOptions {
    unsigned groups = kAllWaveGroups;
    std::vector<unsigned> ports; // empty: every port
    std::string comment;         // first header line (scenario, seed)
    std::string final_path;      // where the file ends up when its folder is renamed after the
                                 // run (the save file names it); empty: where it is written
};

class VcdWriter : public wave::Sink {
  public:
    VcdWriter(std::string path, VcdOptions opt);
    ~VcdWriter() override;
    VcdWriter(const VcdWriter &) = delete;
    VcdWriter &operator=(const VcdWriter &) = delete;

    // Creates the temporary file. False with err on failure.
    bool open(std::string *err);
    // wave::Sink
    wave::SignalId declare(const wave::SignalDecl &d) override;
    void change(wave::SignalId id, uint64_t t, uint64_t value) override;
    void retract_after(wave::SignalId id, uint64_t t) override;
    // Writes the header and the initial values (after every declaration).
    void start();
    // Writes what is left, ends the dump at end_t (time-resolution units), closes and
    // renames into place. False with err on an I/O error (the temporary file is removed).
    bool finish(uint64_t end_t, std::string *err);
    // Removes the temporary file (the run could not produce a waveform).
    void abandon();

    // Where the writer of process pid keeps path while it writes (next to it, hidden), so
    // whoever reaps a dead writer can find what it left.
    static std::string temp_path(const std::string &path, long pid);
    // True when path names an FST file (converted from the VCD by vcd2fst).
    static bool is_fst(const std::string &path);
    // vcd2fst's path on PATH, or "" (then an .fst target is refused).
    static std::string vcd2fst();
    // The translate filter files' contents (GTKWave: value, space, text per line).
    static const char *prim_filter();
    static const char *fis_filter();
    // The save file's path for a waveform path: same folder, extension .gtkw.
    static std::string gtkw_path(const std::string &path);

    size_t signals() const { return sigs_.size(); }
    const std::string &path() const { return path_; }

  private:
    struct Sig {
        wave::SignalDecl decl;
        std::string code;     // VCD identifier
        uint64_t written = 0; // last value written
    };
    struct Rec {
        uint64_t t;
        wave::SignalId id;
        uint64_t v;
    };
    void flush_before(uint64_t limit);
    void write_value(const Sig &s, uint64_t v);
    void write_scopes();
    bool convert_to_fst(std::string *err);
    bool write_gtkw(std::string *err) const;

    std::string path_, tmp_path_;
    VcdOptions opt_;
    FILE *f_ = nullptr;
    bool started_ = false;
    std::vector<Sig> sigs_;
    std::vector<Rec> buf_;
    size_t flush_at_ = 1 << 16;
    uint64_t written_t_ = 0;   // last timestamp written
    std::string line_;
};

} // namespace satasim::harness
