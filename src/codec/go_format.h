// How Go prints floating-point numbers where kubectl's YAML → JSON conversion shows them.
//
// go-yaml v2 turns a YAML float into a float64; sigs.k8s.io/yaml then writes it with
// encoding/json (a value) or strconv.FormatFloat(f, 'g', -1, 32) (a mapping key). podlimits
// reads YAML into the tree kubectl would have sent, so it needs both spellings exactly.
#pragma once

#include <string>

namespace podlimits::codec {

// encoding/json's float64 text: shortest round-trip digits, plain notation for
// 1e-6 <= |f| < 1e21, otherwise exponent notation with Go's cleanup ("1e-7", "1e+21").
std::string GoJsonFloat(double f);

// strconv.FormatFloat(f, 'g', -1, 32): shortest float32 digits, %e when the exponent is below
// -4 or at least 6 ("1e+06", "1.5", "0.0001").
std::string GoFormatFloat32G(float f);

}  // namespace podlimits::codec
