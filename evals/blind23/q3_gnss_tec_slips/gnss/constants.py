C = 299_792_458.0
F1 = 1575.42e6
F2 = 1227.60e6
LAMBDA1 = C / F1
LAMBDA2 = C / F2
# metres of geometry-free delay (P2 - P1) per TEC unit (1e16 electrons / m^2)
K_TECU = 40.3e16 * (1.0 / F2 ** 2 - 1.0 / F1 ** 2)
R_EARTH_KM = 6371.0
