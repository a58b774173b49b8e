#include "trace/controller_json.h"

#include <cstdio>

#include "controller/controller_table.h"
#include "model/fault/fault_kind_spec.h"
#include "trace/json_writer.h"

namespace satasim::harness {

namespace {

std::string hex(unsigned v, int digits) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%0*x", digits, v);
    return b;
}

const char *ncq_name(NcqSupport n) {
    switch (n) {
    case NcqSupport::Optional: return "optional";
    case NcqSupport::Always: return "always";
    case NcqSupport::Never: return "never";
    }
    return "?";
}

// The fault kinds a scenario on this controller may name (the reader's refusals of
// section_faults.cpp, from the kinds' spec rows).
std::vector<std::string> fault_kinds(const ControllerDesc &d) {
    std::vector<std::string> out;
    for (const fault::KindSpec &k : fault::kind_specs())
        if ((!k.taskfile_only || d.taskfile) && (!k.ahci_only || d.ahci_dma_engine))
            out.push_back(k.name);
    return out;
}

} // namespace

std::string controller_table_json() {
    JsonWriter j(true);
    j.begin_object();
    j.kv("generated_by", "satasim controllers --json (harness/src/controller/controller_table.cpp)");
    j.kv("default", controller_descs().front().name); // controller.type when a scenario names none
    j.key("controllers").begin_array();
    for (const ControllerDesc &d : controller_descs()) {
        j.begin_object();
        j.kv("name", d.name);
        j.kv("chip", d.chip);
        j.kv("pci_id", hex(d.pci_vendor, 4) + ":" + hex(d.pci_device, 4));
        j.kv("pci_class", hex(d.pci_class, 6));
        j.kv("driver", d.driver);
        j.kv("log_prefix", d.log_prefix);
        j.kv("model_instance", d.model_instance);
        j.kv("max_ports", d.max_ports);
        j.kv("hardware_ports", d.hardware_ports);
        j.kv("default_ports", d.default_ports);
        j.kv("slots", d.slots);
        j.kv("ncq", ncq_name(d.ncq));
        j.kv("ncq_depth", d.ncq_depth);
        j.kv("max_gen", d.max_gen);
        j.kv("max_udma", d.max_udma);
        j.kv("pmp", d.pmp);
        j.kv("fbs", d.takes_key("fbs"));
        j.kv("scr", d.scr);
        j.kv("taskfile", d.taskfile);
        j.kv("keys", d.keys);
        j.kv("quirks", d.quirks);
        j.kv("backends", d.backends);
        j.kv("fault_kinds", fault_kinds(d));
        // What the Python tools read (ToolFacts): the kernel log's names, the adaptation.
        const ToolFacts &t = d.tools;
        j.kv("kernel_driver", t.kernel_driver);
        j.kv("kernel_glue_match", t.kernel_glue_match);
        j.kv("log_port_desc", t.log_port_desc);
        j.kv("log_irq_stat_words", t.log_irq_stat_words);
        j.key("stands_in").begin_object();
        for (const auto &[role, note] : t.stands_in)
            j.kv(role, note);
        j.end_object();
        j.kv("log_host_line", t.log_host_line);
        j.kv("tagged_non_ncq", t.tagged_non_ncq);
        j.kv("devno1_keys", t.devno1_keys);
        j.kv("reference", t.reference);
        j.kv("adapt_keeps", t.adapt_keeps);
        j.key("adapt_log").begin_array();
        for (const auto &[pattern, replacement] : t.adapt_log)
            j.value(std::vector<std::string>{pattern, replacement});
        j.end_array();
        j.end_object();
    }
    j.end_array();
    j.end_object();
    return j.take(); // ends in a newline (a pretty top-level object)
}

} // namespace satasim::harness
