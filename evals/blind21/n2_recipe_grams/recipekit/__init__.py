from .corpus import CATEGORIES, generate_recipes
from .tokenization import RecipeBPETokenizer
from .dataset import RecipeDataset, RecipeCollator

__all__ = ["CATEGORIES", "generate_recipes", "RecipeBPETokenizer", "RecipeDataset", "RecipeCollator"]
