// Shared by the engine's doctest files: the device under test (device_under_test.h) and the
// conformance library (test kernels, fixtures, the comparator).
#pragma once

#include <doctest/doctest.h>

#include <weft/weft.h>

#include "conformance.h"
#include "device_under_test.h"
