"""QRS detection on integer ADC samples (a reduced Pan-Tompkins: derivative, squaring,
moving-window integration, fixed fraction-of-max threshold, refractory period)."""


def derivative(sig):
    """Five-point derivative 2x[n] + x[n-1] - x[n-3] - 2x[n-4] (the first four samples are 0)."""
    out = [0] * len(sig)
    for i in range(4, len(sig)):
        out[i] = 2 * sig[i] + sig[i - 1] - sig[i - 3] - 2 * sig[i - 4]
    return out


def moving_window_integral(x, width):
    """Sum of the last `width` samples (fewer at the start)."""
    out = [0] * len(x)
    for i in range(len(x)):
        lo = max(0, i - width + 1)
        out[i] = sum(x[lo:i + 1])
    return out


def find_peaks(mwi, threshold, refractory):
    peaks = []
    i = 1
    n = len(mwi)
    while i < n - 1:
        if mwi[i] > threshold and mwi[i] >= mwi[i - 1] and mwi[i] > mwi[i + 1]:
            if not peaks or i - peaks[-1] > refractory:
                peaks.append(i)
        i += 1
    return peaks


def detect_qrs(sig, fs):
    """Return R-peak sample indices of an integer ECG record (list of ints)."""
    width = int(0.150 * fs)
    refractory = int(0.2 * fs)
    der = derivative(sig)
    squared = [d * d for d in der]
    mwi = moving_window_integral(squared, width)
    threshold = max(mwi) // 3
    r_peaks = []
    for p in find_peaks(mwi, threshold, refractory):
        # the integrator lags the QRS: the R wave is the largest raw sample in the window before
        lo = max(0, p - width)
        seg = sig[lo:p + 1]
        j = max(range(len(seg)), key=seg.__getitem__)
        r_peaks.append(lo + j)
    return r_peaks
