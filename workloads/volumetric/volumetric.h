// The volumetric network workload's public API: the model and its DNA, the 21 numeric types,
// weights and checkpoints, the CPU reference and trainer, and the device step mesh and trainer.
// Code outside this folder includes only this.
#pragma once

#include "checkpoint.h"
#include "device_train.h"
#include "dna.h"
#include "dtype.h"
#include "mesh.h"
#include "model.h"
#include "reference.h"
#include "train.h"
#include "weights.h"
