// Weft: a dispatch-graph executor on fixed SSBO bindings. Include this for the whole C++ API.
#pragma once

#include "bits.h"
#include "buffer.h"
#include "compiler.h"
#include "device.h"
#include "dispatch.h"
#include "engine_kernels.h"
#include "error.h"
#include "executable.h"
#include "kernel.h"
#include "npy.h"
#include "pipeline_cache.h"
#include "program.h"
#include "recorder.h"
#include "regulator.h"
#include "segments.h"
#include "weft_layout.h"
