"""Side-scan sonar seabed texture classification (synthetic survey lines)."""
