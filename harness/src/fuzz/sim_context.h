// A fresh SystemC simulation context: the power-on state of the simulator itself.
//
// SystemC elaborates a module hierarchy once per context and cannot add modules after
// sc_start. The in-process fuzz runner therefore does not keep one hierarchy and reset it
// by hand: after each input it destroys that input's hierarchy (models, platform, stack
// threads) and the context it ran in, and the next input elaborates its own topology in a
// new context. What is reused is the process (libraries loaded, sanitizer and coverage
// runtime set up, the input format's tables); every model, the stack's host and the
// harness's trace sink, PRNGs, timers and memory model are new objects built by the same
// constructors as in a fresh process (docs/fuzzing.md, "Persistent runner").
#pragma once

namespace satasim::harness::fuzz {

// Ends every process of the current, paused simulation (a run that did not sc_stop):
// each thread is killed and unwinds its stack (its frames' objects destroyed, the
// sanitizer's stack poisoning undone) while the models it refers to still exist. False
// when the simulation was stopped (an exception): its threads are then abandoned.
bool end_processes();

// Makes a new context current, deleting the previous input's (with every process and
// object left in it). Call with no module of that context alive. The process's first
// context is kept and never used for an input: objects with static storage in libsystemc
// (sc_event's) are registered in it and unregister from it at exit.
void fresh_sim_context();

} // namespace satasim::harness::fuzz
