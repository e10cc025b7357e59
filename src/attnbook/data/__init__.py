"""Every toy task of the book, generated from a seed or a ``torch.Generator`` (no downloads).

One special-token convention (:mod:`attnbook.data.vocab`): ``<pad>`` = 0, ``<bos>`` = 1,
``<eos>`` = 2, then a task's own specials, then its symbols;
:data:`~attnbook.data.vocab.IGNORE_INDEX` marks targets with nothing to predict. One module
per kind of task:

- :mod:`~attnbook.data.dates`: human-written dates → ISO, split by date;
- :mod:`~attnbook.data.sequences`: copy and reverse, recall, k back, the shift cipher;
- :mod:`~attnbook.data.retrieval`: key–value retrieval;
- :mod:`~attnbook.data.zoo`: a nine-token language with agreement, and BERT's masking;
- :mod:`~attnbook.data.shapes`: four shapes on noise, for a ViT.
"""

from attnbook.data.dates import (
    DATE_FORMATS,
    DATE_VOCAB,
    FIRST_DATE,
    LAST_DATE,
    MAX_DATE_LEN,
    MONTHS,
    WEEKDAYS,
    check_date_input,
    date_batches,
    date_examples,
    date_split,
    encode_pairs,
    held_out_dates,
    iso,
)
from attnbook.data.retrieval import RetrievalBatch, retrieval_batch
from attnbook.data.sequences import (
    COPY_SYMBOLS,
    COPY_VOCAB,
    QUERY_ID,
    CipherBatch,
    cipher_batch,
    copy_batch,
    k_back_batch,
    recall_batch,
    recall_vocab_size,
)
from attnbook.data.shapes import SHAPES, ShapeImages, shape_images, shape_patches, shape_stamps
from attnbook.data.vocab import (
    BOS,
    BOS_ID,
    EOS,
    EOS_ID,
    IGNORE_INDEX,
    PAD,
    PAD_ID,
    SPECIALS,
    Vocabulary,
    pad_batch,
)
from attnbook.data.zoo import SLOTS, ZOO_SPECIALS, ZooLanguage, mask_tokens

__all__ = [
    "BOS",
    "BOS_ID",
    "COPY_SYMBOLS",
    "COPY_VOCAB",
    "DATE_FORMATS",
    "DATE_VOCAB",
    "EOS",
    "EOS_ID",
    "FIRST_DATE",
    "IGNORE_INDEX",
    "LAST_DATE",
    "MAX_DATE_LEN",
    "MONTHS",
    "PAD",
    "PAD_ID",
    "QUERY_ID",
    "SHAPES",
    "SLOTS",
    "SPECIALS",
    "WEEKDAYS",
    "ZOO_SPECIALS",
    "CipherBatch",
    "RetrievalBatch",
    "ShapeImages",
    "Vocabulary",
    "ZooLanguage",
    "check_date_input",
    "cipher_batch",
    "copy_batch",
    "date_batches",
    "date_examples",
    "date_split",
    "encode_pairs",
    "held_out_dates",
    "iso",
    "k_back_batch",
    "mask_tokens",
    "pad_batch",
    "recall_batch",
    "recall_vocab_size",
    "retrieval_batch",
    "shape_images",
    "shape_patches",
    "shape_stamps",
]
