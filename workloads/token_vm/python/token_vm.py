"""The token VM from Python: UDPL prompt files compiled into a workflow, then a batch of streams
stepped once per generated token, on a device or on the CPU reference (bit-identical).

    import numpy as np, weft
    from weft.token_vm import Workflow, Machine
    wf = Workflow.compile("examples/token_vm/prompts.toml", flow="examples/token_vm/flow.toml",
                          resources={"problem": "What is 17 * 23 + 4?"})
    vm = Machine(wf, batch=4, device=weft.Device())
    vm.set_tool("calculator", lambda text: str(eval_safely(text)) + "\\n")
    while not vm.done:
        consumed = vm.step(sample(logits))          # uint32[batch] in and out
        if vm.callbacks_ready:
            vm.resolve_callbacks()
    print(vm.extract())

Tools run on the thread that calls resolve_callbacks(), with the GIL held; step() and run()
release the GIL while the device works.
"""
from ._weft.token_vm import TokenVmMachine as Machine
from ._weft.token_vm import TokenVmWorkflow as Workflow

RUNNING, WAIT_TOOL, DONE = 0, 1, 2
SOURCE_FORCED, SOURCE_FEED, SOURCE_SAMPLED, SOURCE_TIMEOUT, SOURCE_WAIT, SOURCE_DONE = range(6)

__all__ = ["Machine", "Workflow", "RUNNING", "WAIT_TOOL", "DONE", "SOURCE_FORCED", "SOURCE_FEED", "SOURCE_SAMPLED",
           "SOURCE_TIMEOUT", "SOURCE_WAIT", "SOURCE_DONE"]
