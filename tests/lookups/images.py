"""Real image files for the recycled-media tests: a drawn scene, and the ways a recycled copy changes it."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw


def scene(seed: int = 0, size: tuple[int, int] = (640, 480)) -> Image.Image:
    """A photograph-like scene: sky and ground gradients, a house, a tree, a sun; ``seed`` moves things."""
    width, height = size
    image = Image.new("RGB", size)
    draw = ImageDraw.Draw(image)
    horizon = int(height * (0.55 + 0.05 * (seed % 3)))
    for y in range(height):
        if y < horizon:
            shade = (90 + y * 100 // horizon, 150 + y * 60 // horizon, 235)
        else:
            shade = (40 + (y - horizon) // 3, 120 - (y - horizon) // 6, 50)
        draw.line([(0, y), (width, y)], fill=shade)
    offset = (seed * 97) % (width // 2)
    draw.rectangle([80 + offset, horizon - 150, 260 + offset, horizon], fill=(170, 60, 50))
    draw.polygon([(60 + offset, horizon - 150), (170 + offset, horizon - 240), (280 + offset, horizon - 150)],
                 fill=(90, 40, 30))  # fmt: skip
    draw.rectangle([150 + offset, horizon - 70, 195 + offset, horizon], fill=(60, 40, 20))
    draw.ellipse([width - 150, 40, width - 60, 130], fill=(255, 220, 90))
    tree = width - 200 - offset // 2
    draw.rectangle([tree, horizon - 90, tree + 20, horizon + 10], fill=(80, 50, 20))
    draw.ellipse([tree - 60, horizon - 200, tree + 80, horizon - 70], fill=(30, 100, 40))
    return image


def other_scene() -> Image.Image:
    """A different picture altogether: a checkerboard street at night."""
    image = Image.new("RGB", (640, 480), (10, 10, 30))
    draw = ImageDraw.Draw(image)
    for row in range(0, 480, 60):
        for column in range(0, 640, 80):
            if (row // 60 + column // 80) % 2 == 0:
                draw.rectangle([column, row, column + 79, row + 59], fill=(220, 200, 60))
    draw.ellipse([260, 180, 380, 300], fill=(200, 30, 30))
    return image


def encoded(image: Image.Image, fmt: str = "PNG", **options: int) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **options)
    return out.getvalue()


def recycled(image: Image.Image) -> bytes:
    """What reposting does: a crop of the borders, a smaller size, a low-quality JPEG."""
    width, height = image.size
    cropped = image.crop((width * 4 // 100, height * 4 // 100, width * 96 // 100, height * 96 // 100))
    smaller = cropped.resize((cropped.width * 6 // 10, cropped.height * 6 // 10))
    return encoded(smaller, "JPEG", quality=25)
