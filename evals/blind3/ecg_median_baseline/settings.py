"""Reads KEY=VALUE settings files (the same format as our .env files)."""


def _cast(value):
    for fn in (int, float):
        try:
            return fn(value)
        except ValueError:
            pass
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def load_env(path):
    settings = {}
    with open(path) as fh:
        for raw in fh:
            line = raw.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            key, value = line.split("=", 1)
            settings[key.strip().lower()] = _cast(value.strip().strip('"'))
    return settings
