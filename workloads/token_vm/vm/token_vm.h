// The token VM's public API: the compiled workflow and its JSON form, the VM state layout, the
// CPU reference and the device VM (also appended to a caller's program: add_vm), and the
// Machine that drives either with a tokenizer. Code outside this folder includes only this (and
// token_vm_layout.h, the state and trace layout shared with GLSL); the UDPL front end is
// token_vm_frontend.h.
#pragma once

#include "calculator.h"
#include "device_vm.h"
#include "machine.h"
#include "reference.h"
#include "serialize.h"
#include "token_vm_layout.h"
#include "vm.h"
#include "workflow.h"
