#include "fuzz/sim_context.h"

#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn for the process that ends the others
#include <systemc>

#include <vector>

namespace satasim::harness::fuzz {

namespace {

void collect(const std::vector<sc_core::sc_object *> &objs, std::vector<sc_core::sc_process_handle> &out) {
    for (sc_core::sc_object *o : objs) {
        sc_core::sc_process_handle h(o);
        if (h.valid())
            out.push_back(h);
        collect(o->get_child_objects(), out);
    }
}

} // namespace

bool end_processes() {
    using namespace sc_core;
    if (sc_get_status() != SC_PAUSED)
        return false;
    bool done = false;
    // kill() is called from a process: the killed thread unwinds at once (IEEE 1666 5.6.6.5).
    sc_spawn_options opts;
    sc_process_handle self = sc_spawn(
        [&done] {
            std::vector<sc_process_handle> all;
            collect(sc_get_top_level_objects(), all);
            const sc_process_handle me = sc_get_current_process_handle();
            for (sc_process_handle &h : all)
                if (h != me && !h.terminated())
                    h.kill();
            done = true;
        },
        "satasim_end_processes", &opts);
    for (int i = 0; i < 4 && !done; ++i)
        sc_start(SC_ZERO_TIME);
    return done;
}

void fresh_sim_context() {
    static sc_core::sc_simcontext *const first = sc_core::sc_get_curr_simcontext();
    // Threads still suspended in the old context (a stack thread waiting for an event that
    // never comes, a hung workload) are freed with it without being resumed: objects owned
    // by their frames are leaked, not destroyed (a few KiB per input; docs/fuzzing.md).
    if (sc_core::sc_curr_simcontext != first)
        delete sc_core::sc_curr_simcontext;
    sc_core::sc_curr_simcontext = new sc_core::sc_simcontext;
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
}

} // namespace satasim::harness::fuzz
