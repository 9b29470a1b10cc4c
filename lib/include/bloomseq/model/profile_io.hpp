// The calibration profile file: a flat JSON object holding a DeviceProfile and its Calibration, written by
// `bloomseq-calibrate` and read by the apps. Default location: ${XDG_CACHE_HOME:-$HOME/.cache}/bloomseq/profile.json.
#pragma once
#include <map>
#include <string>

#include "bloomseq/model/device_profile.hpp"

namespace bloomseq::model {

std::string default_profile_path();

// Writes atomically (temporary file + rename); creates the directory. Throws IoError.
void save_profile(const std::string& path, const DeviceProfile& dev, const Calibration& cal);

struct LoadedProfile {
  DeviceProfile device;
  Calibration calibration;
  bool from_file = false;
  std::string path;
  std::string message;  // one line for stderr: where the numbers come from
};

// Reads `path` (empty = default_profile_path()). A missing file gives the detected CPU profile with built-in
// defaults and says so in `message`; a malformed one throws DataError naming the file and the problem.
LoadedProfile load_profile(const std::string& path = "");
// Parse/serialise (exposed for tests).
std::string profile_to_json(const DeviceProfile& dev, const Calibration& cal);
LoadedProfile profile_from_json(const std::string& text, const std::string& origin);
// Minimal flat JSON object parser: string keys to raw values (strings unquoted/unescaped, numbers and literals as
// written). Throws DataError("<origin>: ...") on malformed input.
std::map<std::string, std::string> parse_flat_json(const std::string& text, const std::string& origin);

}  // namespace bloomseq::model
