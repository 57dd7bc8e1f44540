"""Building the configured judge on a second thread while a command imports the rest of its pipeline.

``icarus check`` spends about half a second importing the pipeline (the store, capture, research, claims)
before it needs its judge, and building the default judge takes about a fifth of a second more, most of it
inside onnxruntime, which lets go of Python's interpreter lock while it sets its session up. Started first,
the build runs beside the imports instead of after them. The judge built is the one
``judge_from_settings`` builds; ``result`` gives it, or raises what building it raised, in the caller's
thread.

Building a registered judge on the second thread imports no module of ours that is not already imported
once this module is (``agreement`` is imported here for that reason), except ``judges.llm``, which brings
no other with it; a test builds every registered judge to hold this. It does import outside libraries
(onnxruntime, tokenizers, safetensors, the LLM client), which import nothing of ours. Two threads
importing modules of ours that import each other could each see the other's half initialised.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

import icarus.judges.agreement  # noqa: F401  imported on this thread, so that the build thread need not
from icarus.judges.protocol import Judge
from icarus.judges.registry import judge_from_settings
from icarus.settings import Settings

__all__ = ["JudgeInBackground"]


class JudgeInBackground:
    """``judge_from_settings(settings)``, started on its own thread when this is made."""

    def __init__(self, settings: Settings) -> None:
        builder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge-build")
        self._judge: Future[Judge] = builder.submit(judge_from_settings, settings)
        builder.shutdown(wait=False)  # the thread ends once the judge is built

    def result(self) -> Judge:
        """The built judge, waiting for it if need be; raises what building it raised
        (``JudgeConfigError`` for a judge that cannot be used)."""
        return self._judge.result()
