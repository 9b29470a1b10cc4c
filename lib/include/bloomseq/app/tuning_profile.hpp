// The device profile --auto-tune plans with. A calibration profile describes the machine it was measured on (a CPU
// unless it was taken on a GPU); when the work runs on a GPU backend, the plan must be made for that GPU instead:
// its properties come from the backend and the model's built-in GPU constants stand in for a calibration.
#pragma once
#include "bloomseq/backend/backend.hpp"
#include "bloomseq/model/profile_io.hpp"

namespace bloomseq {

// `loaded` unchanged for the CPU (backend null or without a model profile) or when `loaded` was calibrated on the
// backend's device (same name); otherwise the backend's device with default_calibration() and a message saying so.
model::LoadedProfile profile_for_backend(const model::LoadedProfile& loaded, const Backend* backend);

}  // namespace bloomseq
