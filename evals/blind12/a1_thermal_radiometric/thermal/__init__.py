"""Thermal (LWIR microbolometer) frame loading, calibration and augmentation."""
from .io import CameraCalibration, RawFrameCodec, synthesize_sequence
from .transforms import (Compose, DecodeRaw, RadiometricCalibration, ReplaceDeadPixels,
                         ToTensor, RandomCrop, RandomHorizontalFlip, Normalize)

__all__ = [
    "CameraCalibration", "RawFrameCodec", "synthesize_sequence",
    "Compose", "DecodeRaw", "RadiometricCalibration", "ReplaceDeadPixels",
    "ToTensor", "RandomCrop", "RandomHorizontalFlip", "Normalize",
]
