#include "bloomseq/app/tuning_profile.hpp"

#include "bloomseq/model/profiles.hpp"

namespace bloomseq {

model::LoadedProfile profile_for_backend(const model::LoadedProfile& loaded, const Backend* backend) {
  model::DeviceProfile device;
  if (!backend || !backend->model_profile(device)) return loaded;
  if (loaded.from_file && loaded.device.kind == model::DeviceKind::Gpu && loaded.device.name == device.name)
    return loaded;
  model::LoadedProfile r = loaded;
  r.device = device;
  r.calibration = model::default_calibration(device);
  r.message = "performance profile: " + device.name + " from its device properties with the model's built-in GPU " +
              "constants (" + (loaded.from_file ? loaded.path + " describes " + loaded.device.name : "no GPU calibration") +
              ")";
  return r;
}

}  // namespace bloomseq
