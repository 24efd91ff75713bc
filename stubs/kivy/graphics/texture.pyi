from typing import Any

class Texture:
    width: int
    height: int
    size: tuple[int, int]
    pixels: bytes
    @staticmethod
    def create(size: tuple[int, int] = ..., colorfmt: str = ..., bufferfmt: str = ..., mipmap: bool = ...,
               **kwargs: Any) -> Texture: ...
    def blit_buffer(self, pbuffer: bytes, size: tuple[int, int] | None = ..., colorfmt: str | None = ...,
                    pos: tuple[int, int] | None = ..., bufferfmt: str | None = ..., **kwargs: Any) -> None: ...
    def flip_vertical(self) -> None: ...
    def save(self, filename: str, flipped: bool = ..., fmt: str | None = ...) -> None: ...
