import importlib.util
from types import SimpleNamespace


def _ns(obj):
    if isinstance(obj, dict):
        return SimpleNamespace(**{k: _ns(v) for k, v in obj.items()})
    return obj


def load_py_config(path):
    spec = importlib.util.spec_from_file_location("_cfg", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return _ns({k: v for k, v in vars(mod).items() if not k.startswith("_")})
