/**
 * An image field: a blob of the server (loaded with the token, as a data URL), a raster data
 * URL, or an https URL of a host the catalog allows. Any other address is named, never loaded.
 */
import { useContext } from 'preact/hooks';
import { readImage } from '../../display-values.js';
import { UiContext } from '../../ui-context.js';
import { BlobImage } from '../BlockData.js';
import { DisplayShell, drawn } from './Displays.js';
import { stringProp, type FieldProps } from './field-props.js';

export function ImageField(props: FieldProps) {
  const { field, instanceId } = props;
  const { catalog, loadImage } = useContext(UiContext);
  const read = readImage(props.value, catalog.imageHosts);
  const alt = stringProp(field.alt) ?? field.label;
  return (
    <DisplayShell props={props}>
      {drawn(props, 'image', read, (image) =>
        image.kind === 'blob' ? (
          <BlobImage instanceId={instanceId} sha256={image.sha256} alt={alt} loadImage={loadImage} className="ui-image" />
        ) : image.kind === 'src' ? (
          <img class="ui-image" src={image.src} alt={alt} decoding="async" referrerpolicy="no-referrer" />
        ) : (
          <p class="ui-data-bad" data-testid="field-image-refused">
            Not shown: only images of this server, data URLs and https addresses of allowed hosts are loaded (<span class="ui-image-src">{image.src}</span>).
          </p>
        ),
      )}
    </DisplayShell>
  );
}
