// The QEMU backend: QEMU's q35 ICH9 AHCI over qtest as the hardware
// (backend/qemu/qemu_machine.h, docs/qemu-backend.md).
#pragma once

#include <memory>

#include "backend/backend.h"

namespace satasim::harness::qemu {

std::unique_ptr<Backend> make_backend();

} // namespace satasim::harness::qemu
