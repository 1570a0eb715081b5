// A choice of a few values, as a group of toggle buttons (aria-pressed), one of them on.

export function Segmented<T extends string>({
  label,
  value,
  options,
  onChange,
  testid,
}: {
  label: string;
  value: T;
  options: [T, string][];
  onChange: (value: T) => void;
  testid?: string;
}) {
  return (
    <div class="segmented" role="group" aria-label={label} data-testid={testid}>
      {options.map(([v, text]) => (
        <button
          type="button"
          key={v}
          aria-pressed={v === value}
          data-testid={testid ? `${testid}-${v.toLowerCase()}` : undefined}
          onClick={() => v !== value && onChange(v)}
        >
          {text}
        </button>
      ))}
    </div>
  );
}
