# Experiment settings for the METAR flight-category nowcaster (loaded by train.py --settings).
SEED = 99
STATIONS = ["EGLL", "EHAM", "LFPG", "EDDF", "EKCH", "EIDW"]
HOURS = 1400          # hourly reports per station
HISTORY = 24          # reports fed to the model
LEAD = 3              # predict the flight category LEAD hours after the last report

BATCH_SIZE = 64
EPOCHS = 3
LR = 2e-3
HIDDEN = 48
LOG_EVERY = 25
