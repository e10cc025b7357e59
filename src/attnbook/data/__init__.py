"""Every toy task of the book, generated from a seed or a ``torch.Generator`` (no downloads).

One special-token convention (:mod:`attnbook.data.vocab`): ``<pad>`` = 0, ``<bos>`` = 1,
``<eos>`` = 2, then a task's own specials, then its symbols;
:data:`~attnbook.data.vocab.IGNORE_INDEX` marks targets with nothing to predict. One module
per kind of task:

- :mod:`~attnbook.data.dates`: human-written dates of 1000–2999 → ISO, split by date,
  with years never seen in training;
- ``attnbook.data.numbers``: numbers in English words → German (or Chinese) words, a
  translation task that reorders, on a small parallel corpus;
- :mod:`~attnbook.data.sequences`: copy and reverse, recall, k back, the shift cipher;
- :mod:`~attnbook.data.retrieval`: key–value retrieval;
- :mod:`~attnbook.data.zoo`: a nine-token language with agreement, and BERT's masking;
- :mod:`~attnbook.data.shapes`: four shapes on noise, for a ViT;
- ``attnbook.data.batching``: batches from a fixed corpus, optionally grouped by length.
"""

from attnbook.data.batching import corpus_batches, lengths_of, trim
from attnbook.data.dates import (
    DATE_FORMATS,
    DATE_VOCAB,
    FIRST_DATE,
    FIRST_YEAR,
    LAST_DATE,
    LAST_YEAR,
    MAX_DATE_LEN,
    MONTHS,
    PIVOT,
    TWO_DIGIT_FORMAT,
    TWO_DIGIT_YEARS,
    WEEKDAYS,
    DateVocabulary,
    ParsedDate,
    check_date_input,
    date_batches,
    date_examples,
    date_split,
    encode_pairs,
    held_out_dates,
    iso,
    parse_date,
    unseen_years,
    year_range,
)
from attnbook.data.numbers import (
    NUMBER_LANGUAGES,
    NumberPairs,
    NumberSplit,
    chinese,
    corpus_numbers,
    english,
    german,
    number_corpus,
    number_pairs,
    number_split,
    number_test_set,
    sample_numbers,
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
    "FIRST_YEAR",
    "IGNORE_INDEX",
    "LAST_DATE",
    "LAST_YEAR",
    "MAX_DATE_LEN",
    "MONTHS",
    "NUMBER_LANGUAGES",
    "PAD",
    "PAD_ID",
    "PIVOT",
    "QUERY_ID",
    "SHAPES",
    "SLOTS",
    "SPECIALS",
    "TWO_DIGIT_FORMAT",
    "TWO_DIGIT_YEARS",
    "WEEKDAYS",
    "ZOO_SPECIALS",
    "CipherBatch",
    "DateVocabulary",
    "NumberPairs",
    "NumberSplit",
    "ParsedDate",
    "RetrievalBatch",
    "ShapeImages",
    "Vocabulary",
    "ZooLanguage",
    "check_date_input",
    "chinese",
    "cipher_batch",
    "copy_batch",
    "corpus_batches",
    "corpus_numbers",
    "date_batches",
    "date_examples",
    "date_split",
    "encode_pairs",
    "english",
    "german",
    "held_out_dates",
    "iso",
    "k_back_batch",
    "lengths_of",
    "mask_tokens",
    "number_corpus",
    "number_pairs",
    "number_split",
    "number_test_set",
    "pad_batch",
    "parse_date",
    "recall_batch",
    "recall_vocab_size",
    "retrieval_batch",
    "sample_numbers",
    "shape_images",
    "shape_patches",
    "shape_stamps",
    "trim",
    "unseen_years",
    "year_range",
]
