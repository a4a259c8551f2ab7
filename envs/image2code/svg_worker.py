"""SVG render worker: runs INSIDE the sandbox, one process per grading (stdlib + cairosvg).

Reads a job (JSON file named by argv[1]) holding the annotated document, the element spans
(each with its own end tag and where it sits in the shared table of open elements, from
which its closed prefix's end tags are built) and the output size; writes ``frames.raw``
(the distinct frames, cairo's BGRA rows one after another: no image encoding, and no numpy
import to pay for) and prints a JSON report with their geometry and, for each element the
index of the frame after it (or -1 when it failed), the final frame, and error messages.

Fast path: the whole document is parsed once and drawn onto ONE cairo surface; after each
split element is drawn, the surface's pixels are copied out (no PNG encoding). A prefix
whose element sits inside a compositing group (opacity, mask, filter: cairo has not
painted it onto the surface yet) is rendered from its closed prefix instead. An element
that raises is dropped and the drawing restarts without it, so later prefixes still render.
A document that does not parse is rendered prefix by prefix (each closed).
"""

import json
import sys

from cairosvg.parser import Tree
from cairosvg.surface import PNGSurface
from cairosvg.url import fetch, parse_url

KEY = "data-codegym-k"
GEOMETRY = {"width": 0, "height": 0, "stride": 0}  # of the frames written (one surface size per job)


def deny_external(url, resource_type):
    """Only data: URLs load; files and the network stay unreachable (the screen also blocks them)."""
    if url and url.startswith("data:"):
        return fetch(url, resource_type)
    raise ValueError(f"external reference blocked: {url[:80]}")


class ElementFailed(Exception):
    """Drawing split element ``key`` raised; ``message`` is the renderer's error."""

    def __init__(self, key, message):
        super().__init__(message)
        self.key, self.message = key, message


class Recorder(PNGSurface):
    """A PNG surface that reports its pixels after each split element is drawn."""

    def __init__(self, tree, on_frame, size):
        self.on_frame, self._keys, self._use_depth, self._groups = on_frame, [], 0, 0
        super().__init__(tree, None, 96, output_width=size[0], output_height=size[1], background_color="white")

    def draw(self, node):
        """Draw ``node`` as cairosvg does, then report the pixels if it is a split element."""
        key = node.get(KEY) if self._use_depth == 0 else None
        try:
            grouped = bool(
                parse_url(node.get("filter")).fragment
                or parse_url(node.get("mask")).fragment
                or (float(node.get("opacity", 1)) < 1 and node.children)
            )
        except ValueError:  # a bad value: cairosvg raises on it below, inside the element
            grouped = False
        is_use = node.tag == "use"
        self._use_depth += is_use
        self._groups += grouped
        if key is not None:
            self._keys.append(int(key))
        try:
            super().draw(node)
        except ElementFailed:
            raise
        except Exception as exc:  # noqa: BLE001 - any renderer error is the element's failure
            if self._keys:
                raise ElementFailed(self._keys[-1], f"{type(exc).__name__}: {exc}") from None
            raise
        finally:
            self._use_depth -= is_use
            self._groups -= grouped
            if key is not None:
                self._keys.pop()
        if key is not None and self.on_frame is not None:
            self.on_frame(int(key), self.pixels(), self._groups > 0)

    def pixels(self):
        """The surface's pixels: BGRA rows of ``stride`` bytes (a copy)."""
        self.cairo.flush()
        GEOMETRY.update(width=self.cairo.get_width(), height=self.cairo.get_height(), stride=self.cairo.get_stride())
        return bytes(self.cairo.get_data())


def render(text, size, on_frame=None):
    """Render ``text``; ``on_frame(key, pixels, grouped)`` is called after each split element."""
    tree = Tree(bytestring=text.encode("utf-8"), url_fetcher=deny_external, unsafe=False)
    return Recorder(tree, on_frame, size).pixels()


def main():
    """Run the job named by argv[1]; see the module docstring."""
    job = json.load(open(sys.argv[1]))
    doc, spans, size = job["doc"], job["spans"], tuple(job["size"])
    open_tags = job.get("open_tags", [])

    def closers(k):
        """End tags closing the prefix that ends with element ``k`` (own tag, then the open ones)."""
        own, at = spans[k][2]
        out = [own]
        while at >= 0:
            name, at = open_tags[at]
            out.append(f"</{name}>")
        return "".join(out)

    frames, index = [], {}
    failed, stale = {}, set()
    # At most about max_frames progress frames, whatever the element count: each frame is
    # the whole canvas (64 KiB at 128x128), so thousands of tiny elements would fill memory.
    # Past it, every ``every``-th element gets a frame; the ones between count as unchanged.
    every = -(-len(spans) // max(1, job.get("max_frames", len(spans) or 1)))

    def framed(k):
        return (k + 1) % every == 0 or k == len(spans) - 1

    def keep(img):
        if frames and frames[-1] == img:
            return len(frames) - 1
        frames.append(img)
        return len(frames) - 1

    def without(upto=None):
        """The document (or the closed prefix ending at element ``upto``) minus failed elements."""
        out, last = [], 0
        for k, (s, e, _) in enumerate(spans):
            if upto is not None and k > upto:
                break
            if k in failed:
                out.append(doc[last:s])
                last = e
        end = spans[upto][1] if upto is not None else len(doc)
        out.append(doc[last:end])
        if upto is not None:
            out.append(closers(upto))
        return "".join(out)

    def on_frame(k, img, grouped):
        if k in index or not framed(k):
            return
        if grouped:
            stale.add(k)
            index[k] = -1
        else:
            index[k] = keep(img)

    final, final_error, mode = -1, "", "incremental"
    try:
        for _ in range(len(spans) + 1):
            try:
                final = keep(render(without(), size, on_frame if job.get("progress", True) else None))
                break
            except ElementFailed as exc:
                failed[exc.key] = exc.message
                index.pop(exc.key, None)
    except Exception as exc:  # noqa: BLE001 - the document as a whole does not render
        final_error = f"{type(exc).__name__}: {exc}"
        mode = "prefix"
    if job.get("progress", True):
        todo = sorted(stale) if mode == "incremental" else range(len(spans))
        for k in todo:
            if k in failed or not framed(k):
                continue
            try:
                index[k] = keep(render(without(k), size))
            except ElementFailed as exc:
                failed[k] = exc.message
            except Exception as exc:  # noqa: BLE001
                failed[k] = f"{type(exc).__name__}: {exc}"
    with open("frames.raw", "wb") as out:
        for frame in frames:
            out.write(frame)
    per_element = [(-1 if k in failed else index.get(k, None)) for k in range(len(spans))]
    print(
        json.dumps(
            {
                "frames": per_element,
                "final": final,
                "final_error": final_error,
                "failed": {str(k): v for k, v in failed.items()},
                "mode": mode,
                "geometry": GEOMETRY,
                "stale": len(stale),
            }
        )
    )


if __name__ == "__main__":
    main()
