"""Record real arguments of one function during a pipeline run, for function-level replay.

Armed by sitecustomize when PERFLOOP_CAPTURE="path/to/file.py:qualname" is set;
writes one pickle per call to PERFLOOP_CAPTURE_DIR as {"args": [...], "kwargs": {...}} (a method's
`self` is pickled once per object, up to PERFLOOP_CAPTURE_MAX_SELF_BYTES, into its own file named by
the call's "self_file": a dataset holding its samples is too large to copy per call), and
beside it a text description of the arguments (perfloop_describe), made here because
perfloop's own process may not be able to import the pipeline's classes to unpickle them.
A profile hook compares each Python call's code object against the target (file and
name), copies the arguments by pickling them at entry (before the function can change
them), and unhooks itself after PERFLOOP_CAPTURE_MAX_CALLS calls in this process.
Works in DataLoader workers: forked ones inherit the hook, spawned ones re-run
sitecustomize. Stdlib only; any failure disarms the capture and never reaches the
pipeline.
"""
import os
import pickle
import sys
import threading

from perfloop_describe import describe_call
from perfloop_layout import Defaults, Env, call_name, capture_notes_name, self_name

_CO_VARARGS, _CO_VARKEYWORDS = 0x04, 0x08


class _Capture:
    def __init__(self, file: str, function: str, out_dir: str, max_calls: int, max_bytes: int,
                 max_self_bytes: int = Defaults.CAPTURE_MAX_SELF_BYTES) -> None:
        self.file = os.path.realpath(file)
        self.name = function.split(".")[-1]
        self.qualname = function
        self.out_dir = out_dir
        self.max_calls, self.max_bytes = max_calls, max_bytes
        self.calls = 0
        self.bytes = 0
        self.previous = sys.getprofile()
        self.files: dict[str, bool] = {}
        self.max_self_bytes = max_self_bytes
        self.selves: dict[int, str] = {}
        self.keep_alive: list = []

    def hook(self, frame, event, arg):
        if self.previous is not None:
            self.previous(frame, event, arg)
        if event != "call" or frame.f_code.co_name != self.name:
            return
        try:
            if self._matches(frame.f_code):
                self._record(frame)
        except Exception as error:  # never let a capture problem reach the pipeline
            self._note(f"capture failed: {type(error).__name__}: {error}")
            self.disarm()

    def _matches(self, code) -> bool:
        filename = code.co_filename
        if filename not in self.files:
            self.files[filename] = os.path.realpath(filename) == self.file
        qualname = getattr(code, "co_qualname", self.qualname)
        return self.files[filename] and qualname == self.qualname

    def _record(self, frame) -> None:
        code, local = frame.f_code, frame.f_locals
        names = code.co_varnames
        positional = [local[n] for n in names[:code.co_argcount]]
        kwargs = {n: local[n] for n in names[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]}
        extra = code.co_argcount + code.co_kwonlyargcount
        if code.co_flags & _CO_VARARGS:
            positional += list(local[names[extra]])
            extra += 1
        if code.co_flags & _CO_VARKEYWORDS:
            kwargs.update(local[names[extra]])
        record = {"args": positional, "kwargs": kwargs}
        if names[:1] == ("self",) and code.co_argcount >= 1:
            # A method of an object that holds its data (a dataset's samples): the object is kept once, the
            # call's own arguments per call.
            self_file = self._keep_self(positional[0])
            if self_file is None:
                return
            record = {"args": positional[1:], "kwargs": kwargs, "self_file": self_file}
        try:
            blob = pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:
            self._note(f"arguments not picklable: {type(error).__name__}: {error}")
            self.disarm()
            return
        if len(blob) > self.max_bytes or self.bytes + len(blob) > 4 * self.max_bytes * self.max_calls:
            self._note(f"call of {len(blob)} bytes skipped (limit {self.max_bytes})")
        else:
            path = os.path.join(self.out_dir, call_name(os.getpid(), self.calls))
            with open(path, "wb") as handle:
                handle.write(blob)
            self.bytes += len(blob)
            # Described here, where the pipeline's classes are importable; perfloop's process may not be.
            with open(path[:-len(".pkl")] + ".txt", "w") as handle:
                handle.write(describe_call(positional, kwargs))
        self.calls += 1
        if self.calls >= self.max_calls:
            self.disarm()

    def _keep_self(self, obj) -> str | None:
        """The file holding `obj` as it was at its first captured call (pickled then, before the method ran);
        None, noted and disarmed, where it cannot be pickled or is larger than max_self_bytes."""
        key = id(obj)
        if key in self.selves:
            return self.selves[key]
        try:
            blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:
            self._note(f"the method's self is not picklable: {type(error).__name__}: {error}")
            self.disarm()
            return None
        if len(blob) > self.max_self_bytes:
            self._note(f"the method's self of {len(blob)} bytes skipped (limit {self.max_self_bytes})")
            self.disarm()
            return None
        name = self_name(os.getpid(), len(self.selves))
        with open(os.path.join(self.out_dir, name), "wb") as handle:
            handle.write(blob)
        self.selves[key] = name
        self.keep_alive.append(obj)  # its id must not be reused by another object during the capture
        return name

    def _note(self, text: str) -> None:
        with open(os.path.join(self.out_dir, capture_notes_name(os.getpid())), "a") as handle:
            handle.write(text + "\n")

    def disarm(self) -> None:
        sys.setprofile(self.previous)
        threading.setprofile(self.previous)


def install() -> None:
    """Arm the capture from the environment; do nothing when it is not configured."""
    spec = os.environ.get(Env.CAPTURE, "")
    out_dir = os.environ.get(Env.CAPTURE_DIR, "")
    if ":" not in spec or not out_dir:
        return
    file, function = spec.rsplit(":", 1)
    os.makedirs(out_dir, exist_ok=True)
    capture = _Capture(file, function, out_dir,
                       max_calls=int(os.environ.get(Env.CAPTURE_MAX_CALLS, str(Defaults.CAPTURE_MAX_CALLS))),
                       max_bytes=int(os.environ.get(Env.CAPTURE_MAX_BYTES, str(Defaults.CAPTURE_MAX_BYTES))),
                       max_self_bytes=int(os.environ.get(Env.CAPTURE_MAX_SELF_BYTES,
                                                         str(Defaults.CAPTURE_MAX_SELF_BYTES))))
    sys.setprofile(capture.hook)
    threading.setprofile(capture.hook)
